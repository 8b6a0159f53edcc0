import type { Prepared, SolverInput } from './solver-input.js';

/**
 * The independent parts of a run. Two units can never compete for time when no dependency links them (directly
 * or through others) and the ranges they may be placed in, [release, deadline] inside the window, lie apart by
 * more than the buffer: whatever one takes, the other's choices stay the same. The objective is a sum over units
 * compared lexicographically, so the best schedule of the whole is the best schedule of each part side by side,
 * and each part is small enough for the exact search where the whole may not be (a routine placement of 45
 * occurrences, one a day in each of three windows, is 45 parts of one unit). ADR 055 records this.
 *
 * Each part is the input with the tasks of its units, and every task that is in no unit (closed, without time,
 * blocked inside its block), so a dependency on one of those reads as it does in the whole. One part (the input
 * itself) when nothing splits.
 */
export function independentParts(input: SolverInput, p: Prepared): SolverInput[] {
  if (p.units.length < 2) return [input];
  const index = new Map(p.units.map((unit, i) => [unit.id, i]));
  const root = p.units.map((_, i) => i);
  const find = (i: number): number => {
    let r = i;
    while (root[r] !== r) r = root[r] as number;
    // Every unit on the way now points at the group's root (a long dependency chain stays cheap).
    for (let at = i; at !== r; ) {
      const next = root[at] as number;
      root[at] = r;
      at = next;
    }
    return r;
  };
  for (const [pred, succs] of p.successors)
    for (const succ of succs) root[find(index.get(pred) as number)] = find(index.get(succ) as number);
  // Each dependency-linked group of units as one range: from its earliest release to its latest deadline.
  const groups = new Map<number, { lo: number; hi: number; units: number[] }>();
  p.units.forEach((unit, i) => {
    const lo = Math.max(p.from, unit.release);
    const hi = Math.max(lo, Math.min(p.to, unit.deadline));
    const group = find(i);
    const g = groups.get(group);
    if (!g) groups.set(group, { lo, hi, units: [i] });
    else {
      g.lo = Math.min(g.lo, lo);
      g.hi = Math.max(g.hi, hi);
      g.units.push(i);
    }
  });
  // Groups whose ranges come within the buffer of each other share time: one part.
  const bufferMs = (input.bufferMin ?? 0) * 60_000;
  const parts: { hi: number; units: number[] }[] = [];
  for (const g of [...groups.values()].sort((a, b) => a.lo - b.lo)) {
    const last = parts.at(-1);
    if (last && g.lo < last.hi + bufferMs) {
      last.hi = Math.max(last.hi, g.hi);
      last.units.push(...g.units);
    } else parts.push({ hi: g.hi, units: [...g.units] });
  }
  if (parts.length === 1) return [input];
  return parts.map((part) => {
    const members = new Set(part.units.flatMap((i) => p.units[i]?.members.map((m) => m.task.id) ?? []));
    const tasks = input.tasks.filter((t) => members.has(t.id) || !p.unitOf.has(t.id));
    const ids = new Set(tasks.map((t) => t.id));
    return { ...input, tasks, dependencies: input.dependencies.filter((d) => ids.has(d.taskId)) };
  });
}
