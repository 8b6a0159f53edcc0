/**
 * Reflow of a subtree inside its root's slot (contract `POST /schedule/reflow`, ADR 053): the root keeps its
 * slot; its descendants are placed again inside it, the root's own duration first, then each open child's
 * block in `sort_order`, each at its earliest feasible start after the previous sibling, under every hard rule.
 * A child block that no longer fits is unscheduled (`no_slot_in_window`, or the more precise deadline or
 * dependency reason) and the next sibling still tries.
 */

import { CLOSED_STATUSES, childrenIndex, unitLowerBound, unitRootedAt } from './solver-blocks.js';
import {
  doneIdsOf,
  type Placement,
  placeUnit,
  roundUpToFiveMinutes,
  type SolverInput,
  type SolverResult,
  unitPlacements,
} from './solver-input.js';
import type { SlotMs } from './solver-rules.js';
import { FreeList } from './solver-structures.js';

export interface ReflowInput extends SolverInput {
  /**
   * The root and its kept slot. `tasks` holds the root and its descendants (others are ignored); `free` must
   * not count the subtree's own current slots as busy (they are being replaced).
   */
  root: { id: string; start: Date; end: Date };
}

/** Placements of the root's descendants (the root itself is not re-placed and not listed). */
export function reflowSubtree(input: ReflowInput): SolverResult {
  const { root } = input;
  const rootStart = root.start.getTime();
  const rootEnd = root.end.getTime();
  const rootTask = input.tasks.find((t) => t.id === root.id);
  const own = rootTask && rootTask.durationMin > 0 ? rootTask.durationMin * 60_000 : 0;
  const done = doneIdsOf(input);
  const children = childrenIndex(input.tasks);
  const nowMs = roundUpToFiveMinutes(input.now);
  const to = Math.min(rootEnd, input.window.end.getTime());
  const free = FreeList.from(input.free, Math.max(rootStart, input.window.start.getTime(), nowMs), to);
  const placed = new Map<string, SlotMs>();
  for (const slot of input.fixed ?? []) placed.set(slot.id, { start: slot.start.getTime(), end: slot.end.getTime() });
  placed.set(root.id, { start: rootStart, end: rootEnd });

  const placements: Placement[] = [];
  const unscheduled: SolverResult['unscheduled'] = [];
  // Closed descendants contribute nothing; open tasks below a closed one are not part of the block (left alone).
  const closedBelow = (id: string) =>
    input.tasks.filter((t) => t.parentId === id && CLOSED_STATUSES.has(t.status) && t.id !== id);
  const stack = [root.id];
  const visited = new Set<string>();
  while (stack.length > 0) {
    const id = stack.pop() as string;
    if (visited.has(id)) continue;
    visited.add(id);
    for (const t of closedBelow(id)) unscheduled.push({ taskId: t.id, reason: 'not_schedulable' });
    for (const t of children.get(id) ?? []) stack.push(t.id);
  }

  let cursor = rootStart + own;
  for (const child of children.get(root.id) ?? []) {
    const { unit, zero } = unitRootedAt(child, children, input.dependencies, done, new Set([root.id]));
    for (const taskId of zero) unscheduled.push({ taskId, reason: 'no_duration' });
    if (unit.duration <= 0) continue;
    if (unit.blockedInside) {
      for (const m of unit.members) unscheduled.push({ taskId: m.task.id, reason: 'blocked_by_dependency' });
      continue;
    }
    const bound = unitLowerBound(unit, placed, done, { nowMs, windowStart: cursor, windowName: `block:${root.id}` });
    const outcome = placeUnit(unit, bound, free, to);
    if ('reason' in outcome || bound === 'blocked') {
      const reason = 'reason' in outcome ? outcome.reason : 'blocked_by_dependency';
      for (const m of unit.members) unscheduled.push({ taskId: m.task.id, reason });
      continue;
    }
    const { start } = outcome;
    free.take(start, start + unit.duration);
    const mine = unitPlacements(unit, start, start > bound.at ? 'busy_or_working_hours' : bound.by);
    for (const pl of mine) placed.set(pl.taskId, { start: pl.start.getTime(), end: pl.end.getTime() });
    placements.push(...mine);
    cursor = start + unit.duration;
  }
  placements.sort((a, b) => a.start.getTime() - b.start.getTime());
  return { placements, unscheduled };
}
