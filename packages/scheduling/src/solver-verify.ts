/**
 * The last step of every solve (ADR 052): the schedule is checked with the contract's rule checker
 * (solver-check.ts) before it is returned, task by task (window, now, one free interval, earliest start,
 * deadline, dependencies) and unit against unit (no overlap outside a block).
 */

import { checkPlacement, type RuleBreach } from './solver-check.js';
import type { FixedSlot, Placement, SolverInput } from './solver-input.js';
import type { Dependency } from './solver-rules.js';

export function verifySchedule(
  input: SolverInput,
  placements: readonly Placement[],
  done: ReadonlySet<string>,
): RuleBreach[] {
  const tasks = new Map(input.tasks.map((t) => [t.id, t]));
  const slots = new Map<string, FixedSlot>();
  for (const f of input.fixed ?? []) slots.set(f.id, f);
  for (const pl of placements) slots.set(pl.taskId, { id: pl.taskId, start: pl.start, end: pl.end });
  const depsOf = new Map<string, Dependency[]>();
  for (const dep of input.dependencies) {
    const list = depsOf.get(dep.taskId);
    if (list) list.push(dep);
    else depsOf.set(dep.taskId, [dep]);
  }
  const breaches: RuleBreach[] = [];
  for (const pl of placements) {
    const task = tasks.get(pl.taskId) ?? { id: pl.taskId };
    const deps = depsOf.get(pl.taskId) ?? [];
    const preds = deps.flatMap((d) => slots.get(d.dependsOnId) ?? []);
    breaches.push(
      ...checkPlacement(task, pl, {
        window: input.window,
        now: input.now,
        free: input.free,
        dependencies: deps,
        slots: preds,
        doneTaskIds: done,
      }),
    );
  }
  // Units (roots and single tasks) must not overlap one another; a block's members lie inside its root's slot.
  const roots = placements
    .filter((pl) => !pl.explanation.startsWith('block:'))
    .sort((a, b) => a.start.getTime() - b.start.getTime());
  for (let i = 1; i < roots.length; i++) {
    const prev = roots[i - 1] as Placement;
    const next = roots[i] as Placement;
    if (next.start.getTime() < prev.end.getTime())
      breaches.push({ taskId: next.taskId, rule: 'busy', detail: `the slot overlaps the slot of ${prev.taskId}` });
  }
  return breaches;
}
