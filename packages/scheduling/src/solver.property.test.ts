import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findContainingInterval, type Interval, mergeIntervals, subtractIntervals } from './intervals.js';
import { roundUpToFiveMinutes, type SolverInput, type SolverTask, solve } from './solver.js';
import { candidatesFor } from './solver-candidates.js';
import { type Dependency, dependencySatisfied } from './solver-rules.js';

const T0 = Date.parse('2027-03-22T00:00:00Z');
const at = (min: number) => new Date(T0 + min * 60_000);
const DEP_TYPES = ['finish_to_start', 'start_to_start', 'finish_to_finish', 'start_to_finish'] as const;

const instance = fc
  .record({
    n: fc.integer({ min: 1, max: 8 }),
    tasks: fc.array(
      fc.record({
        duration: fc.integer({ min: 0, max: 24 }),
        priority: fc.integer({ min: 1, max: 5 }),
        deadline: fc.option(fc.integer({ min: 0, max: 3000 }), { nil: undefined }),
        release: fc.option(fc.integer({ min: 0, max: 2500 }), { nil: undefined }),
        status: fc.constantFrom(
          'pending',
          'pending',
          'pending',
          'pending',
          'scheduled',
          'scheduled',
          'done',
          'skipped',
        ),
      }),
      { minLength: 8, maxLength: 8 },
    ),
    deps: fc.array(
      fc.record({
        a: fc.integer({ min: 0, max: 7 }),
        b: fc.integer({ min: 0, max: 8 }),
        type: fc.constantFrom(...DEP_TYPES),
        lag: fc.integer({ min: -30, max: 120 }),
      }),
      { maxLength: 8 },
    ),
    // Working hours as (gap, length) pieces from T0, busy time cut out of them.
    hours: fc.array(fc.tuple(fc.constantFrom(0, 0, 15, 60, 240, 600), fc.integer({ min: 30, max: 480 })), {
      minLength: 4,
      maxLength: 12,
    }),
    busy: fc.array(fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 5, max: 120 })), { maxLength: 6 }),
    window: fc.tuple(fc.integer({ min: 0, max: 600 }), fc.integer({ min: 300, max: 3000 })),
    nowSec: fc.integer({ min: 0, max: 800 * 60 }),
    fixedPred: fc.option(fc.integer({ min: 0, max: 2800 }), { nil: undefined }),
  })
  .map((r): SolverInput => {
    const tasks: SolverTask[] = r.tasks.slice(0, r.n).map((t, i) => ({
      id: `t${i}`,
      durationMin: t.duration * 5,
      priority: t.priority,
      deadline: t.deadline === undefined ? undefined : at(t.deadline),
      earliestStart: t.release === undefined ? undefined : at(t.release),
      status: t.status,
      sortOrder: i,
    }));
    // b = 8 names the predecessor outside the run; b = 7 a self-loop (a cycle); otherwise edges point to lower
    // indices.
    const dependencies: Dependency[] = r.deps
      .filter((d) => d.a < r.n)
      .map((d) => ({
        taskId: `t${d.a}`,
        dependsOnId: d.b === 8 || d.a === 0 ? 'outside' : d.b === 7 ? `t${d.a}` : `t${d.b % d.a}`,
        type: d.type,
        lagMin: d.lag,
      }));
    // Working-hours pieces laid end to end after gaps; a zero gap makes touching pieces a slot may not straddle.
    const pieces: Interval[] = [];
    let cursor = 0;
    for (const [gap, len] of r.hours) {
      pieces.push({ start: at(cursor + gap), end: at(cursor + gap + len) });
      cursor += gap + len;
    }
    const busy = mergeIntervals(r.busy.map(([s, len]) => ({ start: at(s), end: at(s + len) })));
    const [ws, wlen] = r.window;
    return {
      tasks,
      dependencies,
      fixed: r.fixedPred === undefined ? [] : [{ id: 'outside', start: at(r.fixedPred), end: at(r.fixedPred + 45) }],
      free: subtractIntervals(pieces, busy),
      window: { start: at(ws), end: at(ws + wlen) },
      now: new Date(T0 + r.nowSec * 1000),
    };
  });

/** Every hard rule of the contract, checked from scratch against the input. */
function violations(input: SolverInput, placements: { taskId: string; start: Date; end: Date }[]): string[] {
  const out: string[] = [];
  const slots = new Map(placements.map((p) => [p.taskId, { start: p.start.getTime(), end: p.end.getTime() }]));
  for (const f of input.fixed ?? [])
    if (!slots.has(f.id)) slots.set(f.id, { start: f.start.getTime(), end: f.end.getTime() });
  const done = new Set([
    ...(input.doneTaskIds ?? []),
    ...input.tasks.filter((t) => t.status === 'done').map((t) => t.id),
  ]);
  const sorted = [...placements].sort((a, b) => a.start.getTime() - b.start.getTime());
  for (let i = 0; i < sorted.length; i++) {
    const p = sorted[i] as (typeof sorted)[number];
    const task = input.tasks.find((t) => t.id === p.taskId);
    if (!task) out.push(`${p.taskId}: unknown`);
    if (task && p.end.getTime() - p.start.getTime() !== task.durationMin * 60_000) out.push(`${p.taskId}: length`);
    if (p.start < input.window.start || p.end > input.window.end) out.push(`${p.taskId}: outside window`);
    if (p.start.getTime() < roundUpToFiveMinutes(input.now)) out.push(`${p.taskId}: before now`);
    if (findContainingInterval(input.free, p) < 0) out.push(`${p.taskId}: not inside one free interval`);
    if (i > 0 && (sorted[i - 1] as (typeof sorted)[number]).end > p.start) out.push(`${p.taskId}: overlap`);
    if (task?.earliestStart && p.start < task.earliestStart) out.push(`${p.taskId}: before earliest start`);
    if (task?.deadline && p.end > task.deadline) out.push(`${p.taskId}: after deadline`);
    for (const d of input.dependencies.filter((x) => x.taskId === p.taskId)) {
      if (done.has(d.dependsOnId)) continue;
      const pred = slots.get(d.dependsOnId);
      const own = slots.get(p.taskId);
      if (!pred || !own || !dependencySatisfied(d, pred, own)) out.push(`${p.taskId}: ${d.type} on ${d.dependsOnId}`);
    }
  }
  return out;
}

/** Plain EDF greedy, written independently of the solver: the baseline it must never lose to. */
function edfGreedyCount(input: SolverInput): number {
  const closed = new Set(['done', 'skipped', 'cancelled']);
  const open = input.tasks.filter((t) => !closed.has(t.status) && t.durationMin > 0);
  const done = new Set(input.tasks.filter((t) => t.status === 'done').map((t) => t.id));
  const slots = new Map((input.fixed ?? []).map((f) => [f.id, { start: f.start.getTime(), end: f.end.getTime() }]));
  const settled = new Set<string>();
  let free = input.free.slice();
  let count = 0;
  const from = Math.max(input.window.start.getTime(), roundUpToFiveMinutes(input.now));
  const key = (t: SolverTask) => [
    t.deadline?.getTime() ?? Number.POSITIVE_INFINITY,
    t.priority,
    t.earliestStart?.getTime() ?? Number.NEGATIVE_INFINITY,
    t.sortOrder,
  ];
  for (;;) {
    const ready = open.filter(
      (t) =>
        !settled.has(t.id) &&
        input.dependencies.every(
          (d) =>
            d.taskId !== t.id ||
            done.has(d.dependsOnId) ||
            !open.some((o) => o.id === d.dependsOnId) ||
            settled.has(d.dependsOnId),
        ),
    );
    if (ready.length === 0) return count;
    ready.sort((a, b) => {
      const ka = key(a);
      const kb = key(b);
      for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return (ka[i] as number) < (kb[i] as number) ? -1 : 1;
      return a.id < b.id ? -1 : 1;
    });
    const t = ready[0] as SolverTask;
    settled.add(t.id);
    const dur = t.durationMin * 60_000;
    let lb = Math.max(from, t.earliestStart?.getTime() ?? 0);
    let blocked = false;
    for (const d of input.dependencies.filter((x) => x.taskId === t.id && !done.has(x.dependsOnId))) {
      const pred = slots.get(d.dependsOnId);
      if (!pred) blocked = true;
      else {
        const lag = d.lagMin * 60_000;
        const need = {
          finish_to_start: pred.end + lag,
          start_to_start: pred.start + lag,
          finish_to_finish: pred.end + lag - dur,
          start_to_finish: pred.start + lag - dur,
        }[d.type];
        lb = Math.max(lb, need);
      }
    }
    if (blocked) continue;
    const until = Math.min(input.window.end.getTime(), t.deadline?.getTime() ?? Number.POSITIVE_INFINITY);
    const hit = free
      .map((f) => Math.max(f.start.getTime(), lb))
      .findIndex((s, i) => s + dur <= until && s + dur <= (free[i] as Interval).end.getTime());
    if (hit < 0) continue;
    const start = Math.max((free[hit] as Interval).start.getTime(), lb);
    slots.set(t.id, { start, end: start + dur });
    free = subtractIntervals(free, [{ start: new Date(start), end: new Date(start + dur) }]);
    count++;
  }
}

describe('solver properties', () => {
  it('never breaks a hard rule and accounts for every task exactly once', () => {
    const outcomes = new Map<string, number>();
    const bump = (k: string) => outcomes.set(k, (outcomes.get(k) ?? 0) + 1);
    fc.assert(
      fc.property(instance, (input) => {
        const result = solve(input);
        expect(violations(input, result.placements)).toEqual([]);
        const seen = [...result.placements.map((p) => p.taskId), ...result.unscheduled.map((u) => u.taskId)].sort();
        expect(seen).toEqual(input.tasks.map((t) => t.id).sort());
        for (const p of result.placements) {
          expect(p.explanation).toMatch(/^(now|window_start|earliest_start|busy_or_working_hours|dependency:.+)$/);
          bump(p.explanation.startsWith('dependency:') ? 'dependency' : p.explanation);
        }
        for (const u of result.unscheduled) bump(u.reason);
      }),
      { numRuns: 400, seed: 13 },
    );
    // The generator must reach every outcome, or the property above proves little.
    for (const k of [
      'dependency',
      'earliest_start',
      'busy_or_working_hours',
      'now',
      'no_slot_in_window',
      'no_slot_before_deadline',
      'blocked_by_dependency',
      'not_schedulable',
      'no_duration',
    ])
      expect(outcomes.get(k) ?? 0, k).toBeGreaterThan(0);
  });

  it('places at least as many tasks as earliest-deadline-first greedy', () => {
    fc.assert(
      fc.property(instance, (input) => {
        expect(solve(input).placements.length).toBeGreaterThanOrEqual(edfGreedyCount(input));
      }),
      { numRuns: 400 },
    );
  });

  it('the rule checker itself catches a broken placement', () => {
    const input: SolverInput = {
      tasks: [{ id: 'a', durationMin: 30, priority: 3, status: 'pending', sortOrder: 0, deadline: at(100) }],
      dependencies: [],
      free: [
        { start: at(0), end: at(60) },
        { start: at(60), end: at(200) },
      ],
      window: { start: at(0), end: at(200) },
      now: at(0),
    };
    expect(violations(input, [{ taskId: 'a', start: at(50), end: at(80) }])).toEqual([
      'a: not inside one free interval',
    ]);
    expect(violations(input, [{ taskId: 'a', start: at(90), end: at(120) }])).toEqual(['a: after deadline']);
  });

  it('offers only candidates that keep every hard rule next to the placed tasks', () => {
    fc.assert(
      fc.property(instance, fc.integer({ min: 1, max: 24 }), (input, units) => {
        const placed = solve(input).placements;
        const extra: SolverTask = {
          id: 'extra',
          durationMin: units * 5,
          priority: 3,
          status: 'pending',
          sortOrder: 99,
        };
        const fixed = placed.map((p) => ({ id: p.taskId, start: p.start, end: p.end }));
        const slots = candidatesFor(extra, input, fixed);
        expect(slots.length).toBeLessThanOrEqual(5);
        for (const slot of slots) {
          const withExtra = { ...input, tasks: [...input.tasks, extra] };
          expect(violations(withExtra, [...placed, { taskId: 'extra', ...slot }])).toEqual([]);
        }
      }),
      { numRuns: 200 },
    );
  });
});
