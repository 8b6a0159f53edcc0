import { setTimeout as sleep } from 'node:timers/promises';
import type { Sql } from '@routinely/db';
import type { Clock, PassResult } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import { claimDueReminders, type DueReminder, nextReminderDue } from '../db/claim-sql.js';
import { type NewDelivery, recordFiring } from '../db/deliveries-sql.js';
import { WAKEUP_CHANNEL } from '../db/wakeups-sql.js';
import { DEFAULT_MAX_ATTEMPTS } from '../domain/retry-policy.js';
import type { Channel } from '../domain/values.js';
import { observeFireLag } from './observability.js';

/** The task fields the reminder.fired envelope carries (spec: "Envelope of reminder.fired"). */
function envelopeTask(task: Record<string, unknown>) {
  return {
    id: task.id,
    title: task.title,
    description: task.description ?? null,
    priority: task.priority,
    duration_min: task.duration_min,
    chosen_slot_start: task.chosen_slot_start,
    chosen_slot_end: task.chosen_slot_end,
    tags: task.tags ?? [],
  };
}

/** Builds the stored body of a reminder.fired delivery (everything but `attempt`, added per try). */
function reminderFiredPayload(
  deliveryId: string,
  eventId: string,
  reminder: Pick<DueReminder, 'tenant_id' | 'user_id' | 'task' | 'reminder_set_at'>,
  firedAt: Date,
): Record<string, unknown> {
  return {
    event: 'reminder.fired',
    event_id: eventId,
    delivery_id: deliveryId,
    occurred_at: firedAt.toISOString(),
    reminder_set_at: reminder.reminder_set_at.toISOString(),
    tenant_id: reminder.tenant_id,
    user_id: reminder.user_id,
    task: envelopeTask(reminder.task),
  };
}

export function deliveryRow(
  input: { tenantId: string; userId: string; reminderId: string; channel: Channel; endpointId: string | null },
  payloadOf: (id: string, eventId: string) => Record<string, unknown>,
  maxAttempts: number,
  now: Date,
): NewDelivery {
  const id = uuidv7();
  // A new event per delivery made here (one per firing and target); requeue and redeliver keep it (ADR 044).
  const eventId = uuidv7();
  return {
    id,
    tenant_id: input.tenantId,
    user_id: input.userId,
    reminder_id: input.reminderId,
    endpoint_id: input.endpointId,
    channel: input.channel,
    event: 'reminder.fired',
    event_id: eventId,
    payload: payloadOf(id, eventId),
    max_attempts: maxAttempts,
    created_at: now,
  };
}

/**
 * Fires due reminders: rows are claimed with FOR UPDATE SKIP LOCKED inside the transaction that writes
 * their deliveries and marks them fired. The row lock is the lease: a process that dies mid-pass rolls
 * back and releases it, so another replica fires the reminder, and nothing fires twice.
 */
export class ReminderFirer {
  constructor(
    private readonly db: Sql,
    private readonly clock: Clock,
    private readonly batchSize: number,
    /** Wakes the delivery worker; resolves when the pass it woke has claimed and started what it found. */
    private readonly onFired: () => Promise<void>,
    /** How long the second pass of a burst waits at most for the first pass's deliveries to be started. */
    private readonly firstSendsWaitMs = 50,
  ) {}

  /**
   * The first pass after an idle one fires at most this many: a burst due at one instant gets its first
   * deliveries out after a short transaction, and the following passes take whole batches (ADR 081).
   */
  private static readonly FIRST_BATCH = 20;
  private burst = false;

  async fireDue(limit = this.batchSize): Promise<number> {
    return (await this.fire(limit)).fired;
  }

  /** One firing transaction; `started` resolves when the delivery pass it woke has ended (at once if none). */
  private async fire(limit: number): Promise<{ fired: number; started: Promise<void> }> {
    const now = this.clock.now();
    const fired = await this.db.transaction(async (sql) => {
      const rows = await claimDueReminders(sql, now, limit);
      if (rows.length === 0) return [];
      const deliveries = [];
      for (const reminder of rows) {
        const base = { tenantId: reminder.tenant_id, userId: reminder.user_id, reminderId: reminder.id };
        const payloadOf = (id: string, eventId: string) => reminderFiredPayload(id, eventId, reminder, now);
        for (const channel of new Set(reminder.channels)) {
          if (channel !== 'webhook') {
            deliveries.push(deliveryRow({ ...base, channel, endpointId: null }, payloadOf, DEFAULT_MAX_ATTEMPTS, now));
            continue;
          }
          for (const endpoint of reminder.endpoints) {
            deliveries.push(
              deliveryRow({ ...base, channel, endpointId: endpoint.id }, payloadOf, endpoint.max_attempts, now),
            );
          }
        }
      }
      await recordFiring(
        sql,
        rows.map((r) => r.id),
        deliveries,
        now,
        WAKEUP_CHANNEL,
      );
      return rows;
    });
    for (const reminder of fired) observeFireLag(reminder.remind_at, now);
    return { fired: fired.length, started: fired.length > 0 ? this.onFired() : Promise.resolve() };
  }

  async pass(): Promise<PassResult> {
    const starting = !this.burst;
    const limit = starting ? Math.min(ReminderFirer.FIRST_BATCH, this.batchSize) : this.batchSize;
    const { fired, started } = await this.fire(limit);
    this.burst = fired >= limit;
    if (this.burst) {
      // The second pass builds and inserts a whole batch; started at once, it delayed the first deliveries'
      // claim and their first connection by 10-20 ms on the same event loop and database (ADR 081).
      if (starting) await Promise.race([started, sleep(this.firstSendsWaitMs, undefined, { ref: false })]);
      return { more: true, nextAt: null };
    }
    return { more: false, nextAt: await nextReminderDue(this.db) };
  }
}
