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
