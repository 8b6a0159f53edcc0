import { AppError, fieldError, notFound, type Owner } from '@routinely/platform';
import type { ProviderName } from '../providers.js';
import { MAX_WINDOW_MS, type RunService } from './runs.js';
import type { TaskGateway } from './task-gateway.js';

/**
 * POST /schedule/reflow: keeps the root's slot and re-places its descendants inside it, answered like
 * POST /schedule. The root's own duration comes first in its block (contract), then each child's block in
 * `sort_order`; what no longer fits is unscheduled with `no_slot_in_window` (ADR 053, `reflowSubtree`).
 */
export class ReflowService {
  constructor(
    private readonly runs: RunService,
    private readonly tasks: TaskGateway,
  ) {}

  async reflow(owner: Owner, request: { root_task_id: string; provider?: ProviderName | undefined }) {
    const { tasks } = await this.tasks.getTasks(owner, [request.root_task_id], { includeDescendants: true });
    const root = tasks.find((t) => t.id === request.root_task_id);
    if (!root) throw notFound(`Task ${request.root_task_id}`);
    if (!root.chosenSlotStart || !root.chosenSlotEnd) {
      throw new AppError('not_scheduled', `Task ${root.id} has no slot to reflow inside`);
    }
    // The root's slot is the run's window: bounded like any window (90 days), checked before any work.
    if (root.chosenSlotEnd.getTime() - root.chosenSlotStart.getTime() > MAX_WINDOW_MS) {
      throw fieldError(['body', 'root_task_id'], "the root task's slot spans more than 90 days, too long to reflow");
    }
    const provider = await this.runs.provider(owner, request.provider);
    // The window is the root's slot; the engine re-reads it and lays the block out with reflowSubtree.
    return this.runs.launch(owner, {
      ids: tasks.filter((t) => t.id !== root.id).map((t) => t.id),
      window: { start: root.chosenSlotStart, end: root.chosenSlotEnd },
      provider,
      dryRun: false,
      kind: 'reflow',
      rootTaskId: root.id,
    });
  }
}
