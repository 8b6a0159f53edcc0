import { lazy, Suspense } from 'react';
import { Route, Routes } from 'react-router';
import { Skeleton } from '../ui/states.js';
import { RoutineList } from './RoutineList.js';

// The form and one routine's screen (steps with drag and drop, the rule builder) load when opened: the list is
// the first screen.
const RoutineDetail = lazy(() => import('./RoutineDetail.js').then((m) => ({ default: m.RoutineDetail })));
const NewRoutine = lazy(() => import('./RoutineDetail.js').then((m) => ({ default: m.NewRoutine })));

/** The routines screens: the list, a new routine, one routine. */
export default function RoutinesPage() {
  return (
    <div className="content-page">
      <Suspense fallback={<Skeleton rows={6} label="Loading the routine" />}>
        <Routes>
          <Route index element={<RoutineList />} />
          <Route path="new" element={<NewRoutine />} />
          <Route path=":id" element={<RoutineDetail />} />
        </Routes>
      </Suspense>
    </div>
  );
}
