import { describe, expect, it } from 'vitest';
import type { Task } from '../src/api/queries.js';
import { dropPlacement, keyPlacement, NO_FILTER, plainTasks, subtreeHeight, visibleRows } from '../src/tasks/tree.js';

const base = {
  ...{ tenant_id: 't', user_id: 'u', description: null, raw_input: null, duration_min: 30, deadline_at: null },
  ...{ earliest_start_at: null, reminder_channels: [], reminder_offset_min: 10, chosen_slot_start: null },
  ...{ chosen_slot_end: null, completed_at: null, created_at: '', updated_at: '', recurrence: null, series_id: null },
  occurrence_date: null,
} as const;

function task(id: string, parent: string | null, depth: number, sort: number, extra: Partial<Task> = {}): Task {
  return {
    ...base,
    id,
    parent_task_id: parent,
    depth,
    sort_order: sort,
    title: id,
    status: 'pending',
    priority: 3,
    tags: [],
    ...extra,
  };
}

// house ─ kitchen ─ paint
//       └ garden
// taxes (done, #money)
const tasks: Task[] = [
  task('house', null, 1, 0),
  task('kitchen', 'house', 2, 0),
  task('paint', 'kitchen', 3, 0, { tags: ['diy'], priority: 1 }),
  task('garden', 'house', 2, 1),
  task('taxes', null, 1, 1, { status: 'done', tags: ['money'] }),
];
const ids = (rows: { task: Task }[]) => rows.map((r) => r.task.id);

describe('the task tree', () => {
  it('hides a collapsed branch and keeps the rest in depth-first order', () => {
    expect(ids(visibleRows(tasks, new Set(), NO_FILTER))).toEqual(['house', 'kitchen', 'paint', 'garden', 'taxes']);
    expect(ids(visibleRows(tasks, new Set(['kitchen']), NO_FILTER))).toEqual(['house', 'kitchen', 'garden', 'taxes']);
    expect(ids(visibleRows(tasks, new Set(['house']), NO_FILTER))).toEqual(['house', 'taxes']);
  });

  it('filters by status, tag and priority, keeping the ancestors as context', () => {
    const rows = visibleRows(tasks, new Set(), { ...NO_FILTER, tag: 'diy' });
    expect(ids(rows)).toEqual(['house', 'kitchen', 'paint']);
    expect(rows.map((r) => r.context)).toEqual([true, true, false]);
    expect(ids(visibleRows(tasks, new Set(), { ...NO_FILTER, status: 'done' }))).toEqual(['taxes']);
    expect(ids(visibleRows(tasks, new Set(), { ...NO_FILTER, priority: '1' }))).toEqual(['house', 'kitchen', 'paint']);
  });

  it('places keyboard moves: up, down, indent under the one above, outdent after the parent', () => {
    const garden = tasks[3] as Task;
    expect(keyPlacement(tasks, garden, 'up')).toEqual({ parentId: 'house', position: 0 });
    expect(keyPlacement(tasks, garden, 'down')).toBeUndefined();
    expect(keyPlacement(tasks, garden, 'indent')).toEqual({ parentId: 'kitchen', position: 1 });
    expect(keyPlacement(tasks, garden, 'outdent')).toEqual({ parentId: null, position: 1 });
    expect(keyPlacement(tasks, tasks[0] as Task, 'outdent')).toBeUndefined();
  });

  it('places drops before a row or into it, never into the moved task’s own subtree', () => {
    const [house, kitchen, paint, garden, taxes] = tasks as [Task, Task, Task, Task, Task];
    expect(dropPlacement(tasks, taxes, kitchen, 'upper')).toEqual({ parentId: 'house', position: 0 });
    expect(dropPlacement(tasks, taxes, garden, 'lower')).toEqual({ parentId: 'garden', position: 0 });
    expect(dropPlacement(tasks, house, paint, 'lower')).toBeUndefined();
    expect(subtreeHeight(tasks, house)).toBe(3);
    expect(subtreeHeight(tasks, garden)).toBe(1);
  });

  it('leaves a routine, its occurrences and the steps under them to the Routines screen', () => {
    const routine = task('stretch', null, 1, 2, {
      recurrence: {
        rule: 'FREQ=DAILY',
        starts_on: '2026-01-01',
        until: null,
        window: null,
        horizon_days: 14,
        auto_schedule: true,
      },
    });
    const step = task('mat', 'stretch', 2, 0);
    const occurrence = task('stretch-today', null, 1, 3, { series_id: 'stretch' });
    expect(plainTasks([...tasks, routine, step, occurrence]).map((t) => t.id)).toEqual(tasks.map((t) => t.id));
  });
});
