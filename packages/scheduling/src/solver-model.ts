/**
 * The solver's indexed model of a run (ADR 052): units by index, every in-run dependency as a difference
 * constraint between unit starts (`start[j] >= start[i] + c`, whatever its type and lag, member offsets
 * included), bounds from fixed predecessors, and the contract's objective as per-unit weights. Everything here is
 * iterative: a 10,000-unit dependency chain costs no stack.
 */

import type { Unit } from './solver-blocks.js';
import type { Prepared, SolverTask } from './solver-input.js';
import { dependencyStart } from './solver-rules.js';

export const PRIORITIES = 5;

export interface Edge {
  /** The other unit's index. */
  to: number;
  /** start[succ] >= start[pred] + c (milliseconds; negative when the successor may start first). */
  c: number;
}

export interface Model {
  n: number;
  units: Unit<SolverTask>[];
  index: Map<string, number>;
  dur: Float64Array;
  /** Earliest start from the window, now, earliest starts and fixed predecessors. */
  rel: Float64Array;
  /** Latest end: the window's end and every member's deadline. */
  dl: Float64Array;
  preds: Edge[][];
  succs: Edge[][];
  /** A predecessor outside the run is neither done nor fixed, or the unit sits on (or after) a cycle. */
  blocked: Uint8Array;
  /** Topological order of the units not blocked by a cycle. */
  topo: Int32Array;
  /** Earliest start through the dependency graph (a valid lower bound whenever the unit is placed). */
  es: Float64Array;
  /** Latest start that leaves every successor able to keep its deadline (a heuristic key, not a bound). */
  ls: Float64Array;
  /** Members per priority (n x 5) and the sum of their offsets (n x 5): what a placement adds to the score. */
  count: Float64Array;
  offsets: Float64Array;
  /** Per unit, the members that already have a slot: [offset, current start] pairs. */
  current: number[][];
  currentTotal: number;
  /** Highest priority of any member, and the number of members (a block counts each task). */
  priority: Int8Array;
  size: Int32Array;
  /** Time origin of the score's start sums (keeps them exact integers). */
  origin: number;
  /** The score counts placed members only (start sums and moves stay 0): the walk for more tasks. */
  countsOnly?: boolean;
}

export function buildModel(p: Prepared, tasksWithCurrent: ReadonlyMap<string, number>): Model {
  const units = p.units;
  const n = units.length;
  const index = new Map<string, number>();
  units.forEach((u, i) => {
    index.set(u.id, i);
  });
  const memberUnit = new Map<string, number>();
  const memberAt = new Map<string, { offset: number; span: number }>();
  units.forEach((u, i) => {
    for (const m of u.members) {
      memberUnit.set(m.task.id, i);
      memberAt.set(m.task.id, { offset: m.offset, span: m.span });
    }
  });
  const dur = new Float64Array(n);
  const rel = new Float64Array(n);
  const dl = new Float64Array(n);
  const blocked = new Uint8Array(n);
  const preds: Edge[][] = Array.from({ length: n }, () => []);
  const succs: Edge[][] = Array.from({ length: n }, () => []);
  const count = new Float64Array(n * PRIORITIES);
  const offsets = new Float64Array(n * PRIORITIES);
  const current: number[][] = Array.from({ length: n }, () => []);
  const priority = new Int8Array(n);
  const size = new Int32Array(n);
  let currentTotal = 0;
  for (let j = 0; j < n; j++) {
    const u = units[j] as Unit<SolverTask>;
    dur[j] = u.duration;
    dl[j] = Math.min(p.to, u.deadline);
    let r = Math.max(p.from, u.release);
    for (const { dep, member } of u.external) {
      if (p.done.has(dep.dependsOnId)) continue;
      const i = memberUnit.get(dep.dependsOnId);
      const at = memberAt.get(dep.dependsOnId);
      if (i !== undefined && at !== undefined) {
        const c = dependencyStart(dep, { start: at.offset, end: at.offset + at.span }, member.span) - member.offset;
        preds[j]?.push({ to: i, c });
        succs[i]?.push({ to: j, c });
        continue;
      }
      const fixed = p.fixed.get(dep.dependsOnId);
      if (fixed) r = Math.max(r, dependencyStart(dep, fixed, member.span) - member.offset);
      else blocked[j] = 1;
    }
    rel[j] = r;
    priority[j] = u.priority;
    size[j] = u.members.length;
    for (const m of u.members) {
      const k = Math.min(PRIORITIES, Math.max(1, Math.round(m.task.priority))) - 1;
      count[j * PRIORITIES + k] = (count[j * PRIORITIES + k] as number) + 1;
      offsets[j * PRIORITIES + k] = (offsets[j * PRIORITIES + k] as number) + m.offset;
      const cur = tasksWithCurrent.get(m.task.id);
      if (cur !== undefined) {
        current[j]?.push(m.offset, cur);
        currentTotal++;
      }
    }
  }
  const topo = topologicalOrder(n, preds, succs, blocked);
  const { es, ls } = propagate(n, topo, dur, rel, dl, preds, succs, blocked);
  return {
    n,
    units,
    index,
    dur,
    rel,
    dl,
    preds,
    succs,
    blocked,
    topo,
    es,
    ls,
    count,
    offsets,
    current,
    currentTotal,
    priority,
    size,
    origin: p.from,
  };
}

/** Kahn's algorithm; units on a cycle, and every unit after one, are marked blocked and left out. */
function topologicalOrder(n: number, preds: Edge[][], succs: Edge[][], blocked: Uint8Array): Int32Array {
  const pending = new Int32Array(n);
  for (let j = 0; j < n; j++) pending[j] = (preds[j] as Edge[]).length;
  const order: number[] = [];
  for (let j = 0; j < n; j++) if (pending[j] === 0) order.push(j);
  for (let k = 0; k < order.length; k++)
    for (const e of succs[order[k] as number] as Edge[]) {
      pending[e.to] = (pending[e.to] as number) - 1;
      if (pending[e.to] === 0) order.push(e.to);
    }
  if (order.length < n) {
    const inOrder = new Uint8Array(n);
    for (const j of order) inOrder[j] = 1;
    for (let j = 0; j < n; j++) if (!inOrder[j]) blocked[j] = 1;
  }
  // A successor of a blocked unit can never be placed either.
  for (const j of order) for (const e of preds[j] as Edge[]) if (blocked[e.to]) blocked[j] = 1;
  return Int32Array.from(order);
}

/**
 * Earliest starts forward through the graph, then latest starts backward from the successors that can still be
 * placed (a successor that can never make its deadline does not tighten its predecessors).
 */
function propagate(
  n: number,
  topo: Int32Array,
  dur: Float64Array,
  rel: Float64Array,
  dl: Float64Array,
  preds: Edge[][],
  succs: Edge[][],
  blocked: Uint8Array,
): { es: Float64Array; ls: Float64Array } {
  const es = Float64Array.from(rel);
  for (const j of topo)
    for (const e of preds[j] as Edge[]) es[j] = Math.max(es[j] as number, (es[e.to] as number) + e.c);
  const ls = new Float64Array(n);
  for (let j = 0; j < n; j++) ls[j] = (dl[j] as number) - (dur[j] as number);
  for (let k = topo.length - 1; k >= 0; k--) {
    const i = topo[k] as number;
    for (const e of succs[i] as Edge[]) {
      if (blocked[e.to] || (es[e.to] as number) > (ls[e.to] as number)) continue;
      ls[i] = Math.min(ls[i] as number, (ls[e.to] as number) - e.c);
    }
  }
  return { es, ls };
}

/** Whether a unit can ever be placed on its own bounds (ignoring other units). */
export function possible(m: Model, j: number): boolean {
  return !m.blocked[j] && (m.es[j] as number) + (m.dur[j] as number) <= (m.dl[j] as number);
}
