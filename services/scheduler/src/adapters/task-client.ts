import { type InternalAuth, reopeningRpcClient } from '@routinely/grpc';
import { task_v1 } from '@routinely/proto';
import type { Actor, RunDependency, RunTask, TaskGateway } from '../domain/runs/task-gateway.js';

/** Runs act with the scheduling permission; the task service accepts it for its three scheduler calls. */
const PERMISSIONS = ['SERVICE_SCHEDULE_RUN'];
const instant = (value: string) => (value ? new Date(value) : null);

function fromProto(t: task_v1.Task): RunTask {
  return {
    id: t.id,
    parentTaskId: t.parentTaskId || null,
    sortOrder: t.sortOrder,
    title: t.title,
    // A routine's template is never placed: the solver leaves a task it does not see as open (not_schedulable).
    status: t.recurring ? 'recurring' : t.status,
    priority: t.priority,
    durationMin: t.durationMin,
    deadlineAt: instant(t.deadlineAt),
    earliestStartAt: instant(t.earliestStartAt),
    chosenSlotStart: instant(t.chosenSlotStart),
    chosenSlotEnd: instant(t.chosenSlotEnd),
  };
}

/** The task service over gRPC: what runs, overrides, reflows and conflict checks read and place. */
export class GrpcTaskGateway implements TaskGateway {
  private readonly client;

  constructor(address: string, internalAuth: InternalAuth, deadlineMs: number) {
    this.client = reopeningRpcClient(task_v1.TaskServiceService, address, internalAuth, {
      defaultDeadlineMs: deadlineMs,
    });
  }

  private meta(actor: Actor) {
    return { actor: { tenantId: actor.tenantId, userId: actor.userId, permissions: PERMISSIONS } };
  }

  async getTasks(actor: Actor, ids: readonly string[], options: { includeDescendants?: boolean } = {}) {
    if (ids.length === 0) return { tasks: [], dependencies: [], missingIds: [] };
    const res = await this.client
      .rpc()
      .getTasks({ taskIds: [...ids], includeDescendants: options.includeDescendants ?? false }, this.meta(actor));
    return {
      tasks: res.tasks.map(fromProto),
      dependencies: res.dependencies.map(
        (d): RunDependency => ({
          taskId: d.taskId,
          dependsOnId: d.dependsOnId,
          depType: d.depType as RunDependency['depType'],
          lagMin: d.lagMin,
        }),
      ),
      missingIds: res.missingIds,
    };
  }

  async applySlots(actor: Actor, assignments: Parameters<TaskGateway['applySlots']>[1]) {
    if (assignments.length === 0) return;
    await this.client.rpc().applySlots(
      {
        assignments: assignments.map((a) => ({
          taskId: a.taskId,
          chosenSlotStart: a.start?.toISOString() ?? '',
          chosenSlotEnd: a.end?.toISOString() ?? '',
        })),
        // The gateway answers nothing: the saved tasks would be encoded and decoded for no reader (a routine
        // placement applies up to 1,000 at once).
        withoutTasks: true,
      },
      this.meta(actor),
    );
  }

  async getBusy(actor: Actor, window: { start: Date; end: Date }, excludeTaskIds: readonly string[]) {
    const res = await this.client.rpc().getBusy(
      {
        windowStart: window.start.toISOString(),
        windowEnd: window.end.toISOString(),
        excludeTaskIds: [...excludeTaskIds],
      },
      this.meta(actor),
    );
    return res.blocks.map((b) => ({ start: new Date(b.start), end: new Date(b.end), sources: b.sources }));
  }

  close(): void {
    this.client.close();
  }
}
