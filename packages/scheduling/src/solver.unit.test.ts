import { describe, expect, it } from 'vitest';
import type { Interval } from './intervals.js';
import { roundUpToFiveMinutes, type SolverInput, type SolverTask, solve } from './solver.js';
import { candidatesFor } from './solver-candidates.js';
import type { Dependency } from './solver-rules.js';

const T0 = Date.parse('2027-01-04T08:00:00Z');
const at = (min: number) => new Date(T0 + min * 60_000);
const iv = (from: number, to: number): Interval => ({ start: at(from), end: at(to) });
const task = (id: string, durationMin: number, extra: Partial<SolverTask> = {}): SolverTask => ({
  id,
  durationMin,
  priority: 3,
  status: 'pending',
  sortOrder: 0,
  ...extra,
});
const input = (tasks: SolverTask[], extra: Partial<SolverInput> = {}): SolverInput => ({
  tasks,
  dependencies: [],
  free: [iv(0, 600)],
  window: iv(0, 600),
  now: at(0),
  ...extra,
});
const slotOf = (result: ReturnType<typeof solve>, id: string) => {
  const p = result.placements.find((x) => x.taskId === id);
  return p
    ? { start: (p.start.getTime() - T0) / 60_000, end: (p.end.getTime() - T0) / 60_000, by: p.explanation }
    : undefined;
};
const dep = (taskId: string, dependsOnId: string, type: Dependency['type'], lagMin: number): Dependency => ({
  taskId,
  dependsOnId,
  type,
  lagMin,
});

describe('solve: dependencies with lag', () => {
  const pred = task('p', 60, { deadline: at(100) });
  it('finish_to_start: start >= predecessor end + lag', () => {
    const r = solve(input([pred, task('s', 30)], { dependencies: [dep('s', 'p', 'finish_to_start', 15)] }));
    expect(slotOf(r, 'p')).toMatchObject({ start: 0, end: 60 });
    expect(slotOf(r, 's')).toEqual({ start: 75, end: 105, by: 'dependency:p' });
  });
  it('start_to_start: start >= predecessor start + lag (after the predecessor when they would overlap)', () => {
    const r = solve(input([pred, task('s', 30)], { dependencies: [dep('s', 'p', 'start_to_start', 90)] }));
    expect(slotOf(r, 's')).toEqual({ start: 90, end: 120, by: 'dependency:p' });
    const near = solve(input([pred, task('s', 30)], { dependencies: [dep('s', 'p', 'start_to_start', 10)] }));
    expect(slotOf(near, 's')).toEqual({ start: 60, end: 90, by: 'after:p' });
  });
  it('finish_to_finish: end >= predecessor end + lag', () => {
    const r = solve(input([pred, task('s', 30)], { dependencies: [dep('s', 'p', 'finish_to_finish', 120)] }));
    expect(slotOf(r, 's')).toEqual({ start: 150, end: 180, by: 'dependency:p' });
  });
  it('start_to_finish: end >= predecessor start + lag', () => {
    const r = solve(input([pred, task('s', 30)], { dependencies: [dep('s', 'p', 'start_to_finish', 200)] }));
    expect(slotOf(r, 's')).toEqual({ start: 170, end: 200, by: 'dependency:p' });
  });
  it('a done predecessor satisfies it; a fixed one outside the run binds it; an unplaced one blocks it', () => {
    const done = solve(
      input([task('p', 60, { status: 'done' }), task('s', 30)], {
        dependencies: [dep('s', 'p', 'finish_to_start', 0)],
      }),
    );
    expect(slotOf(done, 's')).toMatchObject({ start: 0 });
    expect(done.unscheduled).toEqual([{ taskId: 'p', reason: 'not_schedulable' }]);
    const fixed = solve(
      input([task('s', 30)], {
        dependencies: [dep('s', 'x', 'finish_to_start', 5)],
        fixed: [{ id: 'x', start: at(200), end: at(240) }],
      }),
    );
    expect(slotOf(fixed, 's')).toEqual({ start: 245, end: 275, by: 'dependency:x' });
    const blocked = solve(
      input([task('p', 900), task('s', 30)], { dependencies: [dep('s', 'p', 'finish_to_start', 0)] }),
    );
    expect(blocked.unscheduled).toEqual(
      expect.arrayContaining([
        { taskId: 'p', reason: 'no_slot_in_window' },
        { taskId: 's', reason: 'blocked_by_dependency' },
      ]),
    );
    const cycle = solve(
      input([task('a', 10), task('b', 10)], {
        dependencies: [dep('a', 'b', 'finish_to_start', 0), dep('b', 'a', 'finish_to_start', 0)],
      }),
    );
    expect(cycle.placements).toEqual([]);
    expect(cycle.unscheduled.map((u) => u.reason)).toEqual(['blocked_by_dependency', 'blocked_by_dependency']);
  });
});

describe('solve: reasons, bounds and ordering', () => {
  it('names not_schedulable, no_duration, no_slot_in_window and no_slot_before_deadline', () => {
    const r = solve(
      input(
        [
          task('skipped', 30, { status: 'skipped' }),
          task('cancelled', 30, { status: 'cancelled' }),
          task('zero', 0),
          task('huge', 700),
          task('late', 60, { deadline: at(90), earliestStart: at(60) }),
        ],
        { free: [iv(0, 300), iv(300, 600)] },
      ),
    );
    expect(r.placements).toEqual([]);
    expect(r.unscheduled).toEqual([
      { taskId: 'skipped', reason: 'not_schedulable' },
      { taskId: 'cancelled', reason: 'not_schedulable' },
      { taskId: 'zero', reason: 'no_duration' },
      expect.objectContaining({ taskId: expect.any(String) }),
      expect.objectContaining({ taskId: expect.any(String) }),
    ]);
    expect(r.unscheduled).toContainEqual({ taskId: 'huge', reason: 'no_slot_in_window' });
    expect(r.unscheduled).toContainEqual({ taskId: 'late', reason: 'no_slot_before_deadline' });
  });
  it('rounds now up to 5 minutes and says so', () => {
    expect(roundUpToFiveMinutes(new Date(T0 + 61_000))).toBe(T0 + 5 * 60_000);
    expect(roundUpToFiveMinutes(at(10))).toBe(T0 + 10 * 60_000);
    const r = solve(input([task('a', 30)], { now: new Date(T0 + 12 * 60_000 + 1) }));
    expect(slotOf(r, 'a')).toEqual({ start: 15, end: 45, by: 'now' });
  });
  it('window start, earliest start and busy time bind the start and are named', () => {
    const windowed = solve(input([task('a', 30)], { window: iv(100, 600) }));
    expect(slotOf(windowed, 'a')).toEqual({ start: 100, end: 130, by: 'window_start' });
    const released = solve(input([task('a', 30, { earliestStart: at(200) })]));
    expect(slotOf(released, 'a')).toEqual({ start: 200, end: 230, by: 'earliest_start' });
    const busy = solve(input([task('a', 30)], { free: [iv(0, 20), iv(50, 600)] }));
    expect(slotOf(busy, 'a')).toEqual({ start: 50, end: 80, by: 'busy_or_working_hours' });
  });
  it('never spans two touching free intervals', () => {
    const r = solve(input([task('a', 60)], { free: [iv(0, 40), iv(40, 80), iv(80, 200)] }));
    expect(slotOf(r, 'a')).toMatchObject({ start: 80, end: 140 });
  });
  it('gives the first free time to the higher priority, as far as deadlines allow', () => {
    const tasks = [
      task('later', 60, { deadline: at(400) }),
      task('sooner', 60, { deadline: at(300) }),
      task('p1', 60, { priority: 1 }),
      task('p5', 60, { priority: 5 }),
    ];
    const r = solve(input(tasks));
    expect(slotOf(r, 'p1')).toEqual({ start: 0, end: 60, by: 'now' });
    expect([slotOf(r, 'sooner')?.start, slotOf(r, 'later')?.start].sort()).toEqual([120, 60]);
    expect(slotOf(r, 'p5')).toMatchObject({ start: 180, end: 240 });
    // A deadline is a constraint, never traded: when `sooner` must take the first hour, p1 takes the second.
    const tight = solve(input(tasks.map((t) => (t.id === 'sooner' ? { ...t, deadline: at(60) } : t))));
    expect(slotOf(tight, 'sooner')).toMatchObject({ start: 0, end: 60 });
    expect(slotOf(tight, 'p1')).toEqual({ start: 60, end: 120, by: 'after:sooner' });
  });

  it('starts a priority-1 task first when it can go first (60-min p1 with 45- and 30-min p3 tasks)', () => {
    // One working day 09:00-17:00: the old objective (sum of all starts) put the 45-minute task at 09:00.
    const day = { free: [iv(60, 540)], window: iv(0, 1440) };
    const r = solve(input([task('p3a', 45), task('p3b', 30), task('p1', 60, { priority: 1 })], day));
    expect(slotOf(r, 'p1')).toEqual({ start: 60, end: 120, by: 'busy_or_working_hours' });
    expect(slotOf(r, 'p3b')).toMatchObject({ start: 120, end: 150 });
    expect(slotOf(r, 'p3a')).toMatchObject({ start: 150, end: 195 });
  });

  it('places a priority-1 task that needs the whole free time rather than two priority-5 tasks', () => {
    const r = solve(
      input([task('a', 30, { priority: 5 }), task('b', 30, { priority: 5 }), task('p1', 60, { priority: 1 })], {
        free: [iv(0, 60)],
      }),
    );
    expect(slotOf(r, 'p1')).toEqual({ start: 0, end: 60, by: 'now' });
    expect(r.unscheduled).toEqual([
      { taskId: 'a', reason: 'no_slot_in_window' },
      { taskId: 'b', reason: 'no_slot_in_window' },
    ]);
  });

  it('keeps a task in the slot it already has when moving it gains nothing', () => {
    // Two equal tasks of one priority: either order has the same starts, so the current slots decide.
    const r = solve(input([task('x', 30), task('y', 30, { currentStart: at(0) })]));
    expect(slotOf(r, 'y')).toMatchObject({ start: 0, end: 30 });
    expect(slotOf(r, 'x')).toMatchObject({ start: 30, end: 60 });
  });

  it('places more tasks than EDF greedy would when free time is fragmented', () => {
    // EDF puts the 20-minute task at 0 and leaves no 100 contiguous minutes for the other.
    const r = solve(
      input([task('short', 20, { deadline: at(120) }), task('long', 100, { deadline: at(130) })], {
        free: [iv(0, 100), iv(100, 120)],
      }),
    );
    expect(slotOf(r, 'long')).toMatchObject({ start: 0, end: 100 });
    expect(slotOf(r, 'short')).toMatchObject({ start: 100, end: 120 });
  });
});

describe('solve: buffer between placements', () => {
  it('keeps bufferMin free between the blocks of one run, not inside a block', () => {
    const tasks = [task('a', 60, { priority: 1 }), task('b', 30, { priority: 2 }), task('c', 30, { parentId: 'a' })];
    const result = solve(input(tasks, { bufferMin: 15 }));
    expect(slotOf(result, 'a')).toMatchObject({ start: 0, end: 90 });
    expect(slotOf(result, 'c')).toMatchObject({ start: 60, end: 90 });
    expect(slotOf(result, 'b')).toMatchObject({ start: 105, end: 135 });
  });

  it('offers a model only candidates a buffer away from placed slots', () => {
    const placed = [{ id: 'x', start: at(0), end: at(60) }];
    const slots = candidatesFor(task('b', 30), input([task('b', 30)], { bufferMin: 20 }), placed);
    expect(slots.length).toBeGreaterThan(0);
    for (const slot of slots) expect(slot.start.getTime()).toBeGreaterThanOrEqual(at(80).getTime());
  });
});

describe('solve: robustness', () => {
  it('solves a 10,000-task dependency chain without recursion on its depth', () => {
    const n = 10_000;
    const tasks = Array.from({ length: n }, (_, i) => task(`c${i}`, 5, { sortOrder: i }));
    const dependencies = tasks.slice(1).map((t, i) => dep(t.id, `c${i}`, 'finish_to_start', 0));
    // 30 working days of 8 hours hold 2,880 five-minute tasks; the rest of the chain waits for its predecessor.
    const free = Array.from({ length: 30 }, (_, d) => iv(d * 1440, d * 1440 + 480));
    const r = solve(input(tasks, { dependencies, free, window: iv(0, 30 * 1440) }));
    expect(r.placements).toHaveLength(2880);
    expect(r.placements.at(-1)?.taskId).toBe('c2879');
    expect(r.unscheduled).toHaveLength(n - 2880);
    expect(r.unscheduled[0]).toEqual({ taskId: 'c2880', reason: 'no_slot_in_window' });
  });
});

describe('candidatesFor', () => {
  it('gives up to 5 feasible slots spread over the window, respecting placed slots', () => {
    const free = Array.from({ length: 10 }, (_, d) => iv(d * 1440, d * 1440 + 480));
    const base = input([], { free, window: iv(0, 14_400) });
    const slots = candidatesFor(task('a', 60), base, [{ id: 'x', start: at(0), end: at(450) }]);
    expect(slots).toHaveLength(5);
    const starts = slots.map((s) => (s.start.getTime() - T0) / 60_000);
    expect(starts).toEqual([1440, 3 * 1440, 5 * 1440, 7 * 1440, 9 * 1440]);
    expect(candidatesFor(task('a', 600), base)).toEqual([]);
    expect(candidatesFor(task('a', 60, { status: 'done' }), base)).toEqual([]);
  });
});
