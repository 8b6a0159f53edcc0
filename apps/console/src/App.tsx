import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { ApiError } from './api/client.js';
import { HomePage } from './auth/HomePage.js';
import { RegisterPage } from './auth/RegisterPage.js';
import { SignInPage } from './auth/SignInPage.js';
import { CalendarPage, CalendarRedirect } from './calendar/CalendarPage.js';
import { AppShell } from './layout/AppShell.js';
import { RequireSession } from './layout/RequireSession.js';
import { ToastProvider } from './ui/toasts.js';

// Screens off the first path load when opened (part 2 adds its screens here the same way).
const TasksPage = lazy(() => import('./tasks/TasksPage.js'));
const RoutinesPage = lazy(() => import('./routines/RoutinesPage.js'));
const SettingsPage = lazy(() => import('./settings/SettingsPage.js'));
const AdminPage = lazy(() => import('./admin/AdminPage.js'));
const HomeDashboard = lazy(() => import('./home/HomeDashboard.js'));
const NotFoundPage = lazy(() => import('./pages/NotFoundPage.js'));

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx is an answer, not a hiccup: only network failures and 5xx are tried again.
      retry: (count, error) => count < 2 && !(error instanceof ApiError && error.status < 500),
      refetchOnWindowFocus: true,
    },
  },
});

/** The route table: the view and date live in the URL (`/calendar/week/2026-11-30`), the open task in `?task=`. */
export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <ToastProvider>
        <BrowserRouter>
          <Suspense fallback={<div className="splash" aria-busy="true" />}>
            <Routes>
              <Route path="/sign-in" element={<SignInPage />} />
              <Route path="/register" element={<RegisterPage />} />
              <Route path="/home" element={<HomePage />}>
                <Route element={<RequireSession />}>
                  <Route element={<AppShell />}>
                    <Route index element={<HomeDashboard />} />
                  </Route>
                </Route>
              </Route>
              <Route element={<RequireSession />}>
                <Route element={<AppShell />}>
                  <Route index element={<Navigate to="/calendar" replace />} />
                  <Route path="/calendar" element={<CalendarRedirect />} />
                  <Route path="/calendar/:view/:date" element={<CalendarPage />} />
                  <Route path="/tasks" element={<TasksPage />} />
                  <Route path="/routines/*" element={<RoutinesPage />} />
                  <Route path="/settings/*" element={<SettingsPage />} />
                  <Route path="/admin/*" element={<AdminPage />} />
                  <Route path="*" element={<NotFoundPage />} />
                </Route>
              </Route>
            </Routes>
          </Suspense>
        </BrowserRouter>
      </ToastProvider>
    </QueryClientProvider>
  );
}
