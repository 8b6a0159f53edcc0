import { describe, expect, it } from 'vitest';
import { type SolverInput, type SolverTask, solve } from '../src/index.js';
import { prepare } from '../src/solver-input.js';
import { independentParts } from '../src/solver-parts.js';
import { generateInstance } from './solver-instances.js';
import { compareObjectives, objectiveOf } from './solver-reference.js';

const DAY_MIN = 1440;
const T0 = Date.parse('2027-03-22T00:00:00Z');
const at = (min: number) => new Date(T0 + min * 60_000);
const WINDOWS = [
  [540, 660],
  [660, 780],
  [840, 960],
] as const;

/** A routine placement as the task service asks for it: per day and window, a root with three 15-minute steps. */
function routinePlacement(days: number, extra: Partial<SolverInput> = {}): SolverInput {
  const tasks: SolverTask[] = [];
  for (let d = 0; d < days; d++)
    WINDOWS.forEach(([from, to], w) => {
      const root = `d${d}w${w}`;
      tasks.push({
        id: root,
        durationMin: 0,
        priority: 3,
        status: 'pending',
        sortOrder: tasks.length,
        earliestStart: at(d * DAY_MIN + from),
        deadline: at(d * DAY_MIN + to),
      });
      for (let s = 0; s < 3; s++)
        tasks.push({
          id: `${root}s${s}`,
          durationMin: 15,
          priority: 3,
          status: 'pending',
          sortOrder: s,
          parentId: root,
        });
    });
  const free = Array.from({ length: days }, (_, d) => ({ start: at(d * DAY_MIN + 540), end: at(d * DAY_MIN + 1020) }));
  return {
    tasks,
    dependencies: [],
    free,
    window: { start: at(0), end: at(days * DAY_MIN) },
    now: at(0),
    ...extra,
  };
}

const partCount = (input: SolverInput) => independentParts(input, prepare(input)).length;

describe('solve: independent parts', () => {
  it('splits a routine placement into one part per occurrence and places each at the start of its window', () => {
    const input = routinePlacement(15);
    expect(partCount(input)).toBe(45);
    const result = solve(input);
    expect(result.unscheduled).toEqual([]);
    expect(result.placements).toHaveLength(180);
    for (const task of input.tasks.filter((t) => t.earliestStart)) {
      expect(result.placements.find((p) => p.taskId === task.id)?.start).toEqual(task.earliestStart);
    }
  });

  it('keeps together what a buffer, a dependency or an open-ended task makes compete', () => {
    // 15 minutes of buffer join the touching 09-11 and 11-13 windows; 14:00 is more than that after 13:00.
    expect(partCount(routinePlacement(15, { bufferMin: 15 }))).toBe(30);
    const linked = routinePlacement(15, {
      dependencies: [{ taskId: 'd3w0s0', dependsOnId: 'd1w2s2', type: 'finish_to_start', lagMin: 0 }],
    });
    // d1w2, d2w0-2 and d3w0 are one part: the linked units and the ones between them in time.
    expect(partCount(linked)).toBe(45 - 4);
    const input = routinePlacement(15);
    const open: SolverTask = { id: 'open', durationMin: 30, priority: 1, status: 'pending', sortOrder: 99 };
    const withOpenTask = { ...input, tasks: [...input.tasks, { ...open, earliestStart: at(10 * DAY_MIN) }] };
    // A task without a deadline may go anywhere after its earliest start: days 10-14 are one part with it.
    expect(partCount(withOpenTask)).toBe(30 + 1);
  });

  it('reaches, for days that never share time, the sum of each day solved alone', () => {
    for (const seed of [11, 29, 47, 83, 131]) {
      const days = Array.from({ length: 4 }, (_, d) =>
        shiftedDay(generateInstance(seed + d, { tasks: 8, days: 1, load: 1.3 }), d),
      );
      const whole: SolverInput = {
        tasks: days.flatMap((day) => day.tasks),
        dependencies: days.flatMap((day) => day.dependencies),
        fixed: days.flatMap((day) => day.fixed ?? []),
        free: days.flatMap((day) => day.free),
        window: { start: at(0), end: at(4 * DAY_MIN) },
        now: at(0),
      };
      expect(partCount(whole)).toBeGreaterThanOrEqual(4);
      const alone = days.flatMap((day) => solve(day).placements);
      const together = solve(whole).placements;
      expect(compareObjectives(objectiveOf(whole, together), objectiveOf(whole, alone)), `seed ${seed}`).toBe(0);
    }
  });
});

/**
 * One generated day moved to day `d` with its own ids: every task bound to that day (earliest start and deadline
 * inside it), as a routine occurrence is, so the day solved alone and inside the whole have the same choices.
 */
function shiftedDay(day: SolverInput, d: number): SolverInput {
  const shift = (date: Date) => new Date(date.getTime() + d * DAY_MIN * 60_000);
  const id = (x: string) => `d${d}-${x}`;
  const start = at(d * DAY_MIN);
  const end = at((d + 1) * DAY_MIN);
  const clamp = (date: Date | undefined, fallback: Date, pick: (a: number, b: number) => number) =>
    new Date(pick((date ? shift(date) : fallback).getTime(), fallback.getTime()));
  return {
    tasks: day.tasks.map((t) => ({
      ...t,
      id: id(t.id),
      ...(t.parentId ? { parentId: id(t.parentId) } : {}),
      earliestStart: clamp(t.earliestStart, start, Math.max),
      deadline: clamp(t.deadline, end, Math.min),
    })),
    dependencies: day.dependencies.map((dep) => ({ ...dep, taskId: id(dep.taskId), dependsOnId: id(dep.dependsOnId) })),
    fixed: (day.fixed ?? []).map((f) => ({ id: id(f.id), start: shift(f.start), end: shift(f.end) })),
    free: day.free.map((i) => ({ start: shift(i.start), end: shift(i.end) })),
    window: { start, end },
    now: start,
  };
}
