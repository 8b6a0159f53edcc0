/**
 * The exact reference for the contract's objective: a time-indexed integer program (5-minute grid) solved by
 * HiGHS, written from the contract's words and the independent block layout of solver-oracle.ts, not from the
 * solver's modules. Objective, lexicographically: placed tasks of priority 1..5 (one stage, weighted so one more
 * of a priority outweighs all lower ones), then the start sums of priority 1..5 (one stage each, the earlier
 * stages held at their optimum). Instances must lie on the 5-minute grid (solver-instances.ts does).
 */

import type { Highs } from 'highs';
import * as highsModule from 'highs';
import { findContainingInterval, roundUpToFiveMinutes, type SolverInput } from '../src/index.js';
import { type OracleMember, oracleUnits } from './solver-oracle.js';

const STEP = 5 * 60_000;
const P = 5;

export interface Objective {
  /** Placed tasks per priority (index 0 is priority 1). */
  counts: number[];
  /** Per priority, the sum of the placed tasks' starts in minutes from the run's first possible start. */
  startSums: number[];
}

// The package's types describe a CommonJS default; the ES build exports the loader as `default` itself.
type Loader = () => Promise<Highs>;
const exported = (highsModule as unknown as { default: Loader | { default: Loader } }).default;
const highsLoader: Loader = typeof exported === 'function' ? exported : exported.default;
let loaded: Promise<Highs> | undefined;
const highs = (): Promise<Highs> => {
  loaded ??= highsLoader();
  return loaded;
};

/** The objective of a schedule (placements of the solver, or of the reference), measured the same way. */
export function objectiveOf(input: SolverInput, placements: readonly { taskId: string; start: Date }[]): Objective {
  const origin = Math.max(input.window.start.getTime(), roundUpToFiveMinutes(input.now));
  const prio = new Map(input.tasks.map((t) => [t.id, t.priority]));
  const counts = [0, 0, 0, 0, 0];
  const startSums = [0, 0, 0, 0, 0];
  for (const p of placements) {
    const k = (prio.get(p.taskId) ?? 5) - 1;
    counts[k] = (counts[k] as number) + 1;
    startSums[k] = (startSums[k] as number) + (p.start.getTime() - origin) / 60_000;
  }
  return { counts, startSums };
}

/** Negative when `a` is better than `b` under the contract's objective (moves left out). */
export function compareObjectives(a: Objective, b: Objective): number {
  for (let k = 0; k < P; k++) if (a.counts[k] !== b.counts[k]) return (b.counts[k] as number) - (a.counts[k] as number);
  for (let k = 0; k < P; k++)
    if (a.startSums[k] !== b.startSums[k]) return (a.startSums[k] as number) - (b.startSums[k] as number);
  return 0;
}

/** The reference ran out of its time limit before proving a stage optimal: the instance has no known optimum. */
export class ReferenceUnproven extends Error {}

/**
 * The optimum of the contract's objective for `input`. `timeLimitSec` bounds HiGHS's time over all stages; when it
 * runs out the call rejects with ReferenceUnproven (the bench reports such instances apart). `onSchedule` gets the
 * optimal schedule (each unit's first timed task id and its start), to compare a miss with by hand.
 */
export async function exactObjective(
  input: SolverInput,
  options: { timeLimitSec?: number; onSchedule?: (startsByRoot: Map<string, Date>) => void } = {},
): Promise<Objective> {
  const deadline = Date.now() + (options.timeLimitSec ?? Number.POSITIVE_INFINITY) * 1000;
  const units = oracleUnits(input);
  const origin = Math.max(input.window.start.getTime(), roundUpToFiveMinutes(input.now));
  const end = input.window.end.getTime();
  const done = new Set([
    ...(input.doneTaskIds ?? []),
    ...input.tasks.filter((t) => t.status === 'done').map((t) => t.id),
  ]);
  const fixed = new Map((input.fixed ?? []).map((f) => [f.id, { start: f.start.getTime(), end: f.end.getTime() }]));
  const memberOf = new Map<string, { u: number; m: OracleMember }>();
  units.forEach((unit, u) => {
    for (const m of unit.timed) memberOf.set(m.task.id, { u, m });
  });
  const need = (type: string, pred: { start: number; end: number }, lag: number, me: OracleMember) =>
    ({
      finish_to_start: pred.end + lag,
      start_to_start: pred.start + lag,
      finish_to_finish: pred.end + lag - me.span,
      start_to_finish: pred.start + lag - me.span,
    })[type] as number;
  const starts: number[][] = [];
  const edges: { i: number; j: number; c: number }[] = [];
  units.forEach((unit, j) => {
    let release = Math.max(origin, unit.release);
    let possible = true;
    for (const x of unit.external) {
      if (done.has(x.dependsOnId)) continue;
      const me = unit.timed.find((m) => m.task.id === x.taskId) as OracleMember;
      const lag = x.lagMin * 60_000;
      const inRun = memberOf.get(x.dependsOnId);
      const slot = fixed.get(x.dependsOnId);
      if (inRun) {
        const pred = { start: inRun.m.off, end: inRun.m.off + inRun.m.span };
        edges.push({ i: inRun.u, j, c: need(x.type, pred, lag, me) - me.off });
      } else if (slot) release = Math.max(release, need(x.type, slot, lag, me) - me.off);
      else possible = false;
    }
    const list: number[] = [];
    const latest = Math.min(end, unit.deadline) - unit.d;
    for (let s = Math.ceil((release - origin) / STEP) * STEP + origin; possible && s <= latest; s += STEP)
      if (findContainingInterval(input.free, { start: new Date(s), end: new Date(s + unit.d) }) >= 0)
        list.push((s - origin) / STEP);
    starts.push(list);
  });
  const x = (u: number, t: number) => `x${u}_${t}`;
  const rows: string[] = [];
  // No two units overlap: per grid cell, at most one unit covering it.
  const cover = new Map<number, string[]>();
  units.forEach((unit, u) => {
    const len = unit.d / STEP;
    for (const t of starts[u] as number[])
      for (let g = t; g < t + len; g++) cover.set(g, [...(cover.get(g) ?? []), x(u, t)]);
  });
  for (const vars of cover.values()) if (vars.length > 1) rows.push(`${vars.join(' + ')} <= 1`);
  units.forEach((_, u) => {
    if ((starts[u] as number[]).length > 0)
      rows.push(`${(starts[u] as number[]).map((t) => x(u, t)).join(' + ')} <= 1`);
  });
  // Dependencies: j at or before t needs i at or before t - c (and so i placed whenever j is).
  for (const { i, j, c } of edges)
    for (const t of starts[j] as number[]) {
      const lhs = (starts[j] as number[]).filter((s) => s <= t).map((s) => x(j, s));
      const rhs = (starts[i] as number[]).filter((s) => s * STEP <= t * STEP - c).map((s) => x(i, s));
      rows.push(`${lhs.join(' + ')}${rhs.length ? ` - ${rhs.join(' - ')}` : ''} <= 0`);
    }
  const countTerms = (k: number) =>
    units.flatMap((unit, u) => {
      const c = unit.timed.filter((m) => m.task.priority === k + 1).length;
      return c === 0 ? [] : (starts[u] as number[]).map((t) => [c, x(u, t)] as const);
    });
  const sumTerms = (k: number) =>
    units.flatMap((unit, u) => {
      const ms = unit.timed.filter((m) => m.task.priority === k + 1);
      const off = ms.reduce((s, m) => s + m.off / STEP, 0);
      return ms.length === 0 ? [] : (starts[u] as number[]).map((t) => [ms.length * t + off, x(u, t)] as const);
    });
  // One term per variable: the LP reader keeps only one coefficient of a variable named twice.
  const expr = (terms: readonly (readonly [number, string])[]) => {
    const merged = new Map<string, number>();
    for (const [c, v] of terms) merged.set(v, (merged.get(v) ?? 0) + c);
    return merged.size === 0 ? '0 x_none' : [...merged].map(([v, c]) => `${c} ${v}`).join(' + ');
  };
  const weight = (k: number) => (input.tasks.length + 1) ** (P - 1 - k);
  const weighted = Array.from({ length: P }, (_, k) =>
    countTerms(k).map(([c, v]) => [c * weight(k), v] as const),
  ).flat();
  const binaries = units.flatMap((_, u) => (starts[u] as number[]).map((t) => x(u, t)));
  const solver = await highs();
  let last: (v: string) => number = () => 0;
  // Each stage's value is computed from the rounded solution, not read from the solver: with weights near 10^6 the
  // integrality tolerance could otherwise leak a unit into the next stage's bound and make it infeasible.
  const run = (sense: 'Maximize' | 'Minimize', terms: readonly (readonly [number, string])[], extra: string[]) => {
    const objective = expr(terms);
    const lp = [
      sense,
      ` obj: ${objective}`,
      'Subject To',
      ...[...rows, ...extra].map((r, n) => ` r${n}: ${r}`),
      'Bounds',
      ' 0 <= x_none <= 0',
      'Binary',
      ...binaries.map((b) => ` ${b}`),
      'End',
    ].join('\n');
    const left = (deadline - Date.now()) / 1000;
    if (left <= 0) throw new ReferenceUnproven('reference: time limit reached');
    const limit = Number.isFinite(left) ? { time_limit: left } : {};
    const result = solver.solve(lp, { mip_rel_gap: 0, mip_abs_gap: 0.5, ...limit });
    if (result.Status === 'Time limit reached') throw new ReferenceUnproven(`reference: ${result.Status}`);
    if (result.Status !== 'Optimal') throw new Error(`reference: ${result.Status}`);
    const value = (v: string) => Math.round((result.Columns[v] as { Primal: number } | undefined)?.Primal ?? 0);
    last = value;
    return terms.reduce((sum, [c, v]) => sum + c * value(v), 0);
  };
  const best = run('Maximize', weighted, []);
  // Counts per priority from the weighted optimum (each count is below the next weight).
  const counts: number[] = [];
  let rest = best;
  for (let k = 0; k < P; k++) {
    counts.push(Math.floor(rest / weight(k)));
    rest -= (counts[k] as number) * weight(k);
  }
  // The later stages hold each count (the lexicographic maximum: no schedule has every count at least these and one
  // more) rather than the weighted sum, whose coefficients near 10^6 made presolve call a feasible stage
  // infeasible. Held with half a unit of slack: every value is an integer, so only the tolerances use it.
  const held = counts.map((c, k) => `${expr(countTerms(k))} >= ${c - 0.5}`);
  const startSums: number[] = [];
  for (let k = 0; k < P; k++) {
    const sum = run('Minimize', sumTerms(k), held);
    held.push(`${expr(sumTerms(k))} <= ${sum + 0.5}`);
    startSums.push(sum * 5);
  }
  if (options.onSchedule) {
    const schedule = new Map<string, Date>();
    units.forEach((unit, u) => {
      for (const t of starts[u] as number[])
        if (last(x(u, t)) === 1) schedule.set(unit.timed[0]?.task.id ?? `${u}`, new Date(origin + t * STEP));
    });
    options.onSchedule(schedule);
  }
  return { counts, startSums };
}
