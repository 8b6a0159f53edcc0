import { Temporal } from '@routinely/time';
import { describe, expect, it } from 'vitest';
import {
  candidatesFor,
  checkPlacement,
  checkProposal,
  type Dependency,
  expandWorkingTime,
  type Interval,
  reflowSubtree,
  type SolverInput,
  type SolverResult,
  type SolverTask,
  solve,
  type WorkingHours,
} from '../src/index.js';

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
const slots = (result: SolverResult) =>
  Object.fromEntries(
    result.placements.map((p) => [
      p.taskId,
      [(p.start.getTime() - T0) / 60_000, (p.end.getTime() - T0) / 60_000, p.explanation],
    ]),
  );
const dep = (taskId: string, dependsOnId: string, type: Dependency['type'] = 'finish_to_start', lagMin = 0) => ({
  taskId,
  dependsOnId,
  type,
  lagMin,
});

/** A parent of 10 minutes with children b (20, sort 2) and a (15, sort 1), a holding a1 (5). */
const family = () => [
  task('p', 10),
  task('b', 20, { parentId: 'p', sortOrder: 2 }),
  task('a', 15, { parentId: 'p', sortOrder: 1 }),
  task('a1', 5, { parentId: 'a', sortOrder: 1 }),
];

describe('solve: parent/children blocks', () => {
  it('lays a block out as its own duration, then each child block in sort order', () => {
    const r = solve(input(family(), { free: [iv(0, 40), iv(100, 600)] }));
    // 10 + (15 + 5) + 20 = 50 minutes: it does not fit the first 40-minute interval.
    expect(slots(r)).toEqual({
      p: [100, 150, 'busy_or_working_hours'],
      a: [110, 130, 'block:p'],
      a1: [125, 130, 'block:p'],
      b: [130, 150, 'block:p'],
    });
    expect(r.unscheduled).toEqual([]);
  });

  it('leaves closed descendants out and reports children without duration', () => {
    const tasks = [...family(), task('z', 0, { parentId: 'p', sortOrder: 0 })].map((t) =>
      t.id === 'a' ? { ...t, status: 'done' } : t,
    );
    const r = solve(input(tasks));
    // a is done: its open child a1 stands alone (first: earlier starts overall); p holds only b.
    expect(slots(r)).toEqual({ a1: [0, 5, 'now'], p: [5, 35, 'after:a1'], b: [15, 35, 'block:p'] });
    expect(r.unscheduled).toEqual(
      expect.arrayContaining([
        { taskId: 'a', reason: 'not_schedulable' },
        { taskId: 'z', reason: 'no_duration' },
      ]),
    );
  });

  it("moves the whole block for a descendant's dependency, earliest start and deadline", () => {
    const moved = solve(input([...family(), task('x', 30)], { dependencies: [dep('b', 'x', 'finish_to_start', 0)] }));
    // b sits 30 minutes into the block and must start after x ends (30): the block may start at 0.
    expect(slots(moved).x).toEqual([0, 30, 'now']);
    expect(slots(moved).p).toEqual([30, 80, 'after:x']);
    const released = solve(input(family().map((t) => (t.id === 'b' ? { ...t, earliestStart: at(100) } : t))));
    expect(slots(released).p).toEqual([70, 120, 'earliest_start']);
    const late = solve(
      input(
        family().map((t) => (t.id === 'a1' ? { ...t, deadline: at(20) } : t)),
        { free: [iv(0, 600)] },
      ),
    );
    // a1 ends 30 minutes into the block: its deadline at 20 cannot hold, though the block fits later.
    expect(late.placements).toEqual([]);
    expect(late.unscheduled.map((u) => u.reason)).toEqual(Array(4).fill('no_slot_before_deadline'));
  });

  it('refuses a block whose own layout breaks a dependency between its members', () => {
    const r = solve(input(family(), { dependencies: [dep('a', 'b')] }));
    expect(r.placements).toEqual([]);
    expect(r.unscheduled).toEqual(['p', 'a', 'a1', 'b'].map((taskId) => ({ taskId, reason: 'blocked_by_dependency' })));
    const fine = solve(input(family(), { dependencies: [dep('b', 'a'), dep('a', 'p', 'start_to_start', 10)] }));
    expect(fine.placements).toHaveLength(4);
  });

  it('offers block slots as candidates and checks a proposed block start member by member', () => {
    const base = input(family(), { free: [iv(0, 40), iv(100, 200), iv(300, 600)] });
    const cands = candidatesFor(family()[0] as SolverTask, base);
    expect(cands.map((c) => [(c.start.getTime() - T0) / 60_000, (c.end.getTime() - T0) / 60_000])).toEqual([
      [100, 150],
      [300, 350],
    ]);
    const ok = checkProposal(base, 'p', at(120), [{ id: 'other', start: at(0), end: at(30) }]);
    expect(ok.breaches).toEqual([]);
    expect(ok.slots.map((s) => s.id)).toEqual(['p', 'a', 'a1', 'b']);
    const bad = checkProposal(base, 'p', at(20), [{ id: 'other', start: at(0), end: at(30) }]);
    expect(bad.breaches.map((b) => b.rule)).toEqual(['busy', 'free_time']);
    const withDeadline = { ...base, tasks: family().map((t) => (t.id === 'b' ? { ...t, deadline: at(340) } : t)) };
    expect(checkProposal(withDeadline, 'p', at(300)).breaches).toEqual([
      { taskId: 'b', rule: 'deadline', detail: `the slot ends after the deadline ${at(340).toISOString()}` },
    ]);
  });
});

describe('reflowSubtree', () => {
  it('keeps the root slot and re-places the descendants inside it in sort order', () => {
    const r = reflowSubtree({ ...input(family()), root: { id: 'p', start: at(200), end: at(300) } });
    expect(slots(r)).toEqual({ a: [210, 230, 'block:p'], a1: [225, 230, 'block:a'], b: [230, 250, 'block:p'] });
  });

  it('steps around busy time inside the slot and unschedules what no longer fits', () => {
    const r = reflowSubtree({
      ...input(family(), { free: [iv(200, 215), iv(220, 245)] }),
      root: { id: 'p', start: at(200), end: at(245) },
    });
    // a (20 with a1) fits 220-240; b (20) has 5 minutes left.
    expect(slots(r)).toEqual({ a: [220, 240, 'busy_or_working_hours'], a1: [235, 240, 'block:a'] });
    expect(r.unscheduled).toEqual([{ taskId: 'b', reason: 'no_slot_in_window' }]);
    const short = reflowSubtree({ ...input(family()), root: { id: 'p', start: at(200), end: at(225) } });
    expect(short.placements.map((p) => p.taskId)).toEqual([]);
    expect(short.unscheduled).toEqual([
      { taskId: 'a', reason: 'no_slot_in_window' },
      { taskId: 'a1', reason: 'no_slot_in_window' },
      { taskId: 'b', reason: 'no_slot_in_window' },
    ]);
  });

  it("measures a child's dependency on the root against the slot the root keeps, not the block's length", () => {
    // The block p (0) + c (5) was laid out at 110-115; the root keeps a longer slot, 110-121. c finishes no
    // earlier than the root (finish-to-finish), so it would need 116-121, and working time ends at 120.
    const tasks = [task('p', 0), task('c', 5, { parentId: 'p' })];
    const base = input(tasks, { free: [iv(0, 120)], dependencies: [dep('c', 'p', 'finish_to_finish')] });
    const longer = reflowSubtree({ ...base, root: { id: 'p', start: at(110), end: at(121) } });
    expect(longer.placements).toEqual([]);
    expect(longer.unscheduled).toEqual([{ taskId: 'c', reason: 'no_slot_in_window' }]);
    const kept = reflowSubtree({ ...base, root: { id: 'p', start: at(110), end: at(115) } });
    expect(slots(kept)).toEqual({ c: [110, 115, 'dependency:p'] });
  });

  it('keeps dependencies and reports closed and empty descendants', () => {
    const tasks = [
      ...family(),
      task('c', 10, { parentId: 'p', sortOrder: 3 }),
      task('d', 10, { parentId: 'p', sortOrder: 4, status: 'skipped' }),
      task('e', 0, { parentId: 'p', sortOrder: 5 }),
    ];
    const r = reflowSubtree({
      ...input(tasks, {
        dependencies: [dep('c', 'x', 'finish_to_start', 0)],
        fixed: [{ id: 'x', start: at(0), end: at(280) }],
      }),
      root: { id: 'p', start: at(200), end: at(300) },
    });
    expect(slots(r).c).toEqual([280, 290, 'dependency:x']);
    expect(r.unscheduled).toEqual(
      expect.arrayContaining([
        { taskId: 'd', reason: 'not_schedulable' },
        { taskId: 'e', reason: 'no_duration' },
      ]),
    );
  });
});

describe('daylight saving: Berlin, 2027-03-28', () => {
  it('places daily one-hour tasks at 09:00 local on both sides of the change', () => {
    const hours: WorkingHours = Object.fromEntries(
      ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ start: '09:00', end: '10:00' }]]),
    );
    const window = { start: new Date('2027-03-25T23:00:00Z'), end: new Date('2027-03-31T22:00:00Z') };
    const free = expandWorkingTime({ timezone: 'Europe/Berlin', workingHours: hours, window });
    // One task per local day, released at that day's local midnight and due by its end.
    const days = ['2027-03-26', '2027-03-27', '2027-03-28', '2027-03-29', '2027-03-30', '2027-03-31'];
    const midnight = (date: string) =>
      new Date(Temporal.PlainDate.from(date).toZonedDateTime('Europe/Berlin').epochMilliseconds);
    const tasks = days.map((date, i) =>
      task(`day-${date}`, 60, {
        earliestStart: midnight(date),
        deadline: new Date(midnight(date).getTime() + 86_400_000 - 3_600_000),
        sortOrder: i,
      }),
    );
    const r = solve({ tasks, dependencies: [], free, window, now: window.start });
    expect(r.unscheduled).toEqual([]);
    const local = r.placements.map((p) => {
      const z = Temporal.Instant.fromEpochMilliseconds(p.start.getTime()).toZonedDateTimeISO('Europe/Berlin');
      return [p.taskId, z.toPlainDate().toString(), z.toPlainTime().toString(), z.offset];
    });
    expect(local).toEqual(
      days.map((date) => [`day-${date}`, date, '09:00:00', date < '2027-03-28' ? '+01:00' : '+02:00']),
    );
  });
});

describe('checkPlacement for an override', () => {
  it('lists working-hours and no-go breaches (warnings for the service) and nothing for a good slot', () => {
    const rules = {
      workingHours: [iv(0, 240), iv(240, 480)],
      noGo: [iv(180, 200)],
      busy: [iv(300, 330)],
    };
    const a = task('a', 60);
    expect(checkPlacement(a, iv(60, 120), rules)).toEqual([]);
    expect(checkPlacement(a, iv(200, 260), rules).map((b) => b.rule)).toEqual(['working_hours']);
    expect(checkPlacement(a, iv(170, 230), rules).map((b) => b.rule)).toEqual(['no_go']);
    expect(checkPlacement(a, iv(500, 560), rules).map((b) => [b.taskId, b.rule])).toEqual([['a', 'working_hours']]);
    expect(checkPlacement(a, iv(310, 370), rules).map((b) => b.rule)).toEqual(['busy']);
  });
});
