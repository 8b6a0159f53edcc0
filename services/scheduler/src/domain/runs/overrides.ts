import type { Sql } from '@routinely/db';
import { type Clock, type FieldLoc, fieldError, notFound, type Owner } from '@routinely/platform';
import {
  expandNoGoWindows,
  expandWorkingHours,
  findContainingInterval,
  type Interval,
  overlapsAny,
} from '@routinely/scheduling';
import { v7 as uuidv7 } from 'uuid';
import { type DecisionRow, findOwnDecision, insertDecision, markApplied } from '../../db/runs-sql.js';
import type { PlacementLock } from '../placement-lock.js';
import type { SettingsService } from '../settings.js';
import { storableRationale } from './run-engine.js';
import { decisionView } from './run-views.js';
import type { TaskGateway } from './task-gateway.js';

const DAY_MS = 86_400_000;
/** Contract: a manual or override slot is at most 31 days long (its warnings expand working time over it). */
const MAX_SLOT_MS = 31 * DAY_MS;

/** The contract's bounds of a slot the user chose: end after start, at most 31 days; checked before any work. */
function checkUserSlot(slot: { start: Date; end: Date }, field: FieldLoc): void {
  if (slot.end <= slot.start) throw fieldError(field, 'chosen_slot_end must be after chosen_slot_start');
  if (slot.end.getTime() - slot.start.getTime() > MAX_SLOT_MS)
    throw fieldError(field, 'a slot is at most 31 days long');
}

export interface OverrideRequest {
  chosen_slot_start: Date;
  chosen_slot_end: Date;
  rationale?: string | undefined;
}

/** Why a slot the user chose breaks the rules the engine keeps (allowed: the user chose it). */
function slotWarnings(settings: Awaited<ReturnType<SettingsService['get']>>, slot: Interval): string[] {
  // A day either side covers every wall-clock interval that could contain the slot.
  const around = { start: new Date(slot.start.getTime() - DAY_MS), end: new Date(slot.end.getTime() + DAY_MS) };
  const hours = expandWorkingHours({
    timezone: settings.timezone,
    workingHours: settings.working_hours,
    window: around,
  });
  const noGo = expandNoGoWindows({ timezone: settings.timezone, noGoWindows: settings.no_go_windows, window: around });
  const warnings: string[] = [];
  if (findContainingInterval(hours, slot) < 0) warnings.push('outside_working_hours');
  if (overlapsAny(noGo, slot)) warnings.push('in_no_go_window');
  return warnings;
}

/** Overrides: a new decision superseding one of the caller's, applied to the task at once. */
export class OverrideService {
  constructor(
    private readonly deps: {
      db: Sql;
      clock: Clock;
      settings: SettingsService;
      tasks: TaskGateway;
      placements: PlacementLock;
    },
  ) {}

  async override(owner: Owner, decisionId: string, request: OverrideRequest) {
    const slot = { start: request.chosen_slot_start, end: request.chosen_slot_end };
    checkUserSlot(slot, ['body', 'chosen_slot_end']);
    const sql = this.deps.db;
    const previous = await findOwnDecision(sql, owner, decisionId);
    if (!previous) throw notFound('Decision');
    const warnings = slotWarnings(await this.deps.settings.get(owner), slot);
    const row: DecisionRow = {
      id: uuidv7(),
      tenant_id: owner.tenantId,
      user_id: owner.userId,
      run_id: previous.run_id,
      task_id: previous.task_id,
      chosen_slot_start: slot.start,
      chosen_slot_end: slot.end,
      rationale: storableRationale(request.rationale ?? '') || 'chosen by the user',
      provider: previous.provider,
      model: previous.model,
      source: 'override',
      supersedes_id: previous.id,
      dry_run: false,
      applied: false,
      warnings,
      created_by: owner.userId,
      created_at: this.deps.clock.now(),
    };
    // Written first, applied second: a failure in between leaves an unapplied decision the caller can see.
    // Under the user's placement lock, so no run reads the busy time between the two and places over it.
    await this.deps.placements.run(owner.userId, async () => {
      await insertDecision(sql, row);
      await this.deps.tasks.applySlots(owner, [{ taskId: row.task_id, start: slot.start, end: slot.end }]);
      await markApplied(sql, [row.id]);
    });
    return decisionView({ ...row, applied: true });
  }
}
