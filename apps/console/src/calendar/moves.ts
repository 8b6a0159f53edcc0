import { type QueryClient, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, data, problemText } from '../api/client.js';
import { type CalendarEvent, keys, type Task } from '../api/queries.js';
import { wallOf } from '../time/wall.js';
import { hhmm, weekdayName } from '../time/zone.js';
import { useToasts } from '../ui/toasts.js';

/** A task's new slot: ISO instants. `previous` is where it was (for Undo); none for a task placed from the panel. */
export interface SlotChange {
  taskId: string;
  title: string;
  start: string;
  end: string;
  previous?: { start: string; end: string } | undefined;
  /** Part of an Undo: no further Undo is offered. */
  undo?: boolean;
}

type EventsPage = { events: CalendarEvent[]; from: string; to: string; view: string };

/** Puts the task's block at its new slot in every cached range (added when it was not on the calendar). */
function placeInCache(queryClient: QueryClient, change: SlotChange): void {
  queryClient.setQueriesData<EventsPage>({ queryKey: keys.events }, (page) => {
    if (!page) return page;
    const inRange = change.start < page.to && change.end > page.from;
    const others = page.events.filter((e) => e.task_id !== change.taskId);
    const old = page.events.find((e) => e.task_id === change.taskId);
    if (!inRange) return { ...page, events: others };
    const moved: CalendarEvent = old
      ? { ...old, start: change.start, end: change.end }
      : {
          ...{ id: change.taskId, source: 'task', title: change.title, start: change.start, end: change.end },
          ...{ all_day: false, status: 'scheduled', busy: true, task_id: change.taskId, integration_id: null },
          ...{ external_id: null, editable: true },
        };
    return { ...page, events: [...others, moved].sort((a, b) => a.start.localeCompare(b.start)) };
  });
  queryClient.setQueryData<Task[]>(keys.tasks, (tasks) =>
    tasks?.map((t) =>
      t.id === change.taskId
        ? { ...t, status: 'scheduled', chosen_slot_start: change.start, chosen_slot_end: change.end }
        : t,
    ),
  );
}

/**
 * Moving, resizing or placing a task block: shown at once, sent as the task's manual slot (PATCH, contract
 * "Area C: tasks"), rolled back with the problem's detail when the API refuses, and undoable for 10 seconds.
 */
export function useSlotChange(timeZone: string) {
  const queryClient = useQueryClient();
  const toasts = useToasts();
  const mutation = useMutation({
    mutationFn: async (change: SlotChange) =>
      data(
        await api.PATCH('/api/v1/service/tasks/{task_id}', {
          params: { path: { task_id: change.taskId } },
          body: { chosen_slot_start: change.start, chosen_slot_end: change.end },
        }),
      ),
    onMutate: async (change) => {
      await queryClient.cancelQueries({ queryKey: keys.events });
      const events = queryClient.getQueriesData({ queryKey: keys.events });
      await queryClient.cancelQueries({ queryKey: keys.tasks });
      const tasks = queryClient.getQueryData(keys.tasks);
      placeInCache(queryClient, change);
      return { events, tasks };
    },
    onError: (error, change, saved) => {
      for (const [key, value] of saved?.events ?? []) queryClient.setQueryData(key, value);
      if (saved?.tasks) queryClient.setQueryData(keys.tasks, saved.tasks);
      toasts.show({ text: `“${change.title}” was not moved: ${problemText(error)}`, tone: 'error' });
    },
    onSuccess: (_task, change) => {
      if (change.undo) {
        toasts.show({ text: `“${change.title}” is back where it was`, tone: 'info' });
        return;
      }
      const at = wallOf(change.start, timeZone);
      const previous = change.previous;
      toasts.show({
        text: `${previous ? 'Moved' : 'Scheduled'} “${change.title}” to ${weekdayName(at)} ${hhmm(at)}`,
        tone: 'info',
        timeoutMs: 10_000,
        action: previous
          ? { label: 'Undo', run: () => mutation.mutate({ ...change, ...previous, previous: undefined, undo: true }) }
          : undefined,
      });
    },
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: keys.events });
      void queryClient.invalidateQueries({ queryKey: keys.tasks });
    },
  });
  return mutation;
}
