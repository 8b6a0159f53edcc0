import type { Interval } from '@routinely/scheduling';

/** The acting user of a call to the task service: the run's owner with the permission runs need. */
export interface Actor {
  tenantId: string;
  userId: string;
}

/** A task as a run needs it (the task service's gRPC Task, datetimes parsed). */
export interface RunTask {
  id: string;
  parentTaskId: string | null;
  sortOrder: number;
  title: string;
  status: string;
  priority: number;
  durationMin: number;
  deadlineAt: Date | null;
  earliestStartAt: Date | null;
  chosenSlotStart: Date | null;
  chosenSlotEnd: Date | null;
}

export interface RunDependency {
  taskId: string;
  dependsOnId: string;
  depType: 'finish_to_start' | 'start_to_start' | 'finish_to_finish' | 'start_to_finish';
  lagMin: number;
}

interface BusyTime extends Interval {
  /** What made it busy, e.g. `google:<event id>:<title>` sources as the task service names them. */
  sources: { source: string; id: string; title: string }[];
}

interface SlotAssignment {
  taskId: string;
  start: Date | null;
  end: Date | null;
}

/** What runs ask of the task service (gRPC task.v1 in production; see adapters/task-client.ts). */
export interface TaskGateway {
  /** The caller's tasks by id (with `includeDescendants`, every descendant too, parents first). */
  getTasks(
    actor: Actor,
    ids: readonly string[],
    options?: { includeDescendants?: boolean },
  ): Promise<{
    tasks: RunTask[];
    dependencies: RunDependency[];
    missingIds: string[];
  }>;
  /** Idempotent: applying the same slot twice leaves the task as once. */
  applySlots(actor: Actor, assignments: readonly SlotAssignment[]): Promise<void>;
  getBusy(actor: Actor, window: Interval, excludeTaskIds: readonly string[]): Promise<BusyTime[]>;
}
