import { Route, Routes } from 'react-router';
import { NewRoutine, RoutineDetail } from './RoutineDetail.js';
import { RoutineList } from './RoutineList.js';

/** The routines screens: the list, a new routine, one routine. */
export default function RoutinesPage() {
  return (
    <div className="content-page">
      <Routes>
        <Route index element={<RoutineList />} />
        <Route path="new" element={<NewRoutine />} />
        <Route path=":id" element={<RoutineDetail />} />
      </Routes>
    </div>
  );
}
