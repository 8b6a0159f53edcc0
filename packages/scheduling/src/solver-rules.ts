/** Dependency semantics of the contract, as the earliest start they allow (times in epoch milliseconds). */
export type DependencyType = 'finish_to_start' | 'start_to_start' | 'finish_to_finish' | 'start_to_finish';

export interface Dependency {
  taskId: string;
  dependsOnId: string;
  type: DependencyType;
  lagMin: number;
}

export interface SlotMs {
  start: number;
  end: number;
}

export interface Bound {
  at: number;
  by: string;
}

const MINUTE = 60_000;

/** Earliest start one dependency allows a task of `duration`, given the predecessor's slot. */
export function dependencyStart(dep: Dependency, pred: SlotMs, duration: number): number {
  const lag = dep.lagMin * MINUTE;
  switch (dep.type) {
    case 'finish_to_start':
      return pred.end + lag;
    case 'start_to_start':
      return pred.start + lag;
    case 'finish_to_finish':
      return pred.end + lag - duration;
    case 'start_to_finish':
      return pred.start + lag - duration;
  }
}

/** True when the slot satisfies the dependency against the predecessor's slot. */
export function dependencySatisfied(dep: Dependency, pred: SlotMs, slot: SlotMs): boolean {
  return slot.start >= dependencyStart(dep, pred, slot.end - slot.start);
}

/**
 * The tightest lower bound on a task's start and the constraint that sets it, or 'blocked' when a predecessor
 * is neither done nor placed. Ties go to the most specific constraint (dependency, earliest start, now, window).
 */
export function lowerBound(
  task: { earliestStart?: Date },
  duration: number,
  predecessors: readonly Dependency[],
  placed: ReadonlyMap<string, SlotMs>,
  done: ReadonlySet<string>,
  base: { nowMs: number; windowStart: number },
): Bound | 'blocked' {
  let bound: Bound = { at: base.windowStart, by: 'window_start' };
  const raise = (at: number, by: string) => {
    if (at >= bound.at && !(at === bound.at && bound.by.startsWith('dependency:'))) bound = { at, by };
  };
  raise(base.nowMs, 'now');
  if (task.earliestStart) raise(task.earliestStart.getTime(), 'earliest_start');
  for (const dep of predecessors) {
    if (done.has(dep.dependsOnId)) continue;
    const pred = placed.get(dep.dependsOnId);
    if (!pred) return 'blocked';
    raise(dependencyStart(dep, pred, duration), `dependency:${dep.dependsOnId}`);
  }
  return bound;
}
