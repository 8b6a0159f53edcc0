import type { Schemas } from '@routinely/api-client';
import { keepPreviousData, type QueryClient, useQuery } from '@tanstack/react-query';
import type { Temporal } from 'temporal-polyfill';
import { dayStart, type View } from '../time/zone.js';
import { ApiError, api, data } from './client.js';

/**
 * The console's reads, one hook each, over the typed client: the answer types come from the OpenAPI document,
 * so a change there that the screens do not handle fails the console's typecheck. Query keys live here so a
 * write can name what it changes (part 2's screens add their own the same way).
 */
export type CalendarEvent = Schemas['CalendarEvent'];
export type Task = Schemas['Task'];
export type Settings = Schemas['Settings'];
export type Decision = Schemas['Decision'];
/** A task as `GET /tasks/{id}` answers it: a routine's series carries its stats. */
export type TaskWithStats = Task & { series_stats?: Schemas['SeriesStats'] };

export const keys = {
  me: ['me'] as const,
  settings: ['settings'] as const,
  tiles: ['tiles'] as const,
  events: ['events'] as const,
  eventsIn: (from: string, to: string, view: View) => ['events', from, to, view] as const,
  tasks: ['tasks'] as const,
  task: (id: string) => ['tasks', 'one', id] as const,
  dependencies: (id: string) => ['tasks', 'dependencies', id] as const,
  notifications: ['notifications'] as const,
  cost: ['cost'] as const,
  providers: ['providers'] as const,
  latestRun: ['runs', 'latest'] as const,
  summary: ['dashboard', 'summary'] as const,
  integrations: ['integrations'] as const,
  webhooks: ['webhooks'] as const,
  webhookAttempts: (id: string) => ['webhooks', 'attempts', id] as const,
  deadLetters: ['webhooks', 'dead-letters'] as const,
  usage: ['usage'] as const,
  quota: ['usage', 'quota'] as const,
  routine: (id: string) => ['tasks', 'routine', id] as const,
  occurrences: (id: string, from: string, to: string) => ['tasks', 'occurrences', id, from, to] as const,
};

export function useMe() {
  return useQuery({
    queryKey: keys.me,
    queryFn: async () => data(await api.GET('/api/v1/auth/me')),
    staleTime: 5 * 60_000,
    // No session is an answer (sign-in); a server or network failure is tried again.
    retry: (count, error) => count < 3 && !(error instanceof ApiError && error.status < 500),
  });
}

export function useSettings() {
  return useQuery({
    queryKey: keys.settings,
    queryFn: async () => data(await api.GET('/api/v1/service/settings/me')),
    staleTime: 5 * 60_000,
  });
}

export function useTiles() {
  return useQuery({
    queryKey: keys.tiles,
    queryFn: async () => data(await api.GET('/api/v1/service/dashboard/tiles')),
    staleTime: 10 * 60_000,
  });
}

export type DashboardSummary = Schemas['DashboardSummary'];

/** The home screen's figures; polled like the bell, so the counts follow what happens elsewhere. */
export function useSummary() {
  return useQuery({
    queryKey: keys.summary,
    queryFn: async () => data(await api.GET('/api/v1/service/dashboard/summary')),
    refetchInterval: 30_000,
    refetchIntervalInBackground: false,
  });
}

/** The instants bounding a run of local days: from the first day's start to the start of the day after the last. */
export function rangeOfDays(days: readonly Temporal.PlainDate[], timeZone: string) {
  const first = days[0];
  const last = days[days.length - 1];
  if (!first || !last) throw new Error('a range needs at least one day');
  return {
    from: dayStart(first, timeZone).toInstant().toString(),
    to: dayStart(last.add({ days: 1 }), timeZone)
      .toInstant()
      .toString(),
  };
}

function eventsQuery(from: string, to: string, view: View) {
  return {
    queryKey: keys.eventsIn(from, to, view),
    queryFn: async () =>
      data(await api.GET('/api/v1/service/calendar/events', { params: { query: { from, to, view, limit: 1000 } } })),
    staleTime: 30_000,
  };
}

export function useEvents(range: { from: string; to: string }, view: View) {
  return useQuery({ ...eventsQuery(range.from, range.to, view), placeholderData: keepPreviousData });
}

/** Loads a neighbouring range ahead of time, so switching weeks shows data at once. */
export function prefetchEvents(client: QueryClient, range: { from: string; to: string }, view: View) {
  return client.prefetchQuery(eventsQuery(range.from, range.to, view));
}

/**
 * Every task of the user in one read (the depth-first tree, one page of up to 5,000): the calendar takes each
 * block's priority and the side panel its unscheduled tasks from it.
 */
export function useAllTasks<T = Task[]>(select?: (tasks: Task[]) => T) {
  return useQuery({
    queryKey: keys.tasks,
    queryFn: async () =>
      data(await api.GET('/api/v1/service/routine-tasks/tree', { params: { query: { limit: 5000 } } })),
    staleTime: 30_000,
    select,
  });
}

/** Root tasks waiting for a slot that have a duration: what the side panel offers and Plan my week places. */
export function unscheduledOf(tasks: Task[]): Task[] {
  return tasks.filter(
    (t) => t.status === 'pending' && t.parent_task_id === null && t.recurrence === null && t.duration_min > 0,
  );
}

export function tasksById(tasks: Task[]): Map<string, Task> {
  return new Map(tasks.map((t) => [t.id, t]));
}

export function useNotifications() {
  return useQuery({
    queryKey: keys.notifications,
    queryFn: async () => data(await api.GET('/api/v1/service/notifications', { params: { query: { limit: 20 } } })),
    // New notifications show within 30 seconds without a reload (ADR 100): polled every 15.
    refetchInterval: 15_000,
    refetchIntervalInBackground: false,
  });
}

export function useCost(enabled: boolean) {
  return useQuery({
    queryKey: keys.cost,
    queryFn: async () => data(await api.GET('/api/v1/service/schedule/cost/me')),
    enabled,
  });
}

export function useProviders(enabled: boolean) {
  return useQuery({
    queryKey: keys.providers,
    queryFn: async () => data(await api.GET('/api/v1/service/llm/providers')),
    staleTime: 10 * 60_000,
    enabled,
  });
}

/**
 * Decisions whose rationale the calendar can show: the latest run's. A decision explains a block only while
 * the block still sits in the decision's slot (a manual move makes it the user's choice).
 */
export function useLatestDecisions() {
  return useQuery({
    queryKey: keys.latestRun,
    queryFn: async () => {
      const result = await api.GET('/api/v1/service/schedule/runs/latest');
      if (result.response.status === 404) return [];
      return data(result).decisions;
    },
    staleTime: 60_000,
  });
}

/** One task as `GET /tasks/{id}` answers it: a routine's series carries `series_stats` (done, streaks). */
export function useRoutine(id: string) {
  return useQuery({
    queryKey: keys.routine(id),
    queryFn: async () => data(await api.GET('/api/v1/service/tasks/{task_id}', { params: { path: { task_id: id } } })),
  });
}

/** A routine's occurrences dated `from`..`to` (local dates, inclusive). */
export function useOccurrences(id: string, from: string, to: string) {
  return useQuery({
    queryKey: keys.occurrences(id, from, to),
    queryFn: async () =>
      data(
        await api.GET('/api/v1/service/tasks/{task_id}/occurrences', {
          params: { path: { task_id: id }, query: { from, to } },
        }),
      ).items,
  });
}

export function useIntegrations() {
  return useQuery({
    queryKey: keys.integrations,
    queryFn: async () => data(await api.GET('/api/v1/service/integrations')),
  });
}

export function useWebhooks() {
  return useQuery({
    queryKey: keys.webhooks,
    queryFn: async () => data(await api.GET('/api/v1/service/webhooks')),
  });
}
