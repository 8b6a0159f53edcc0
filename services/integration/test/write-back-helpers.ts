import { randomUUID } from 'node:crypto';
import { type EventTransport, makeEvent, type TaskSnapshot, taskEvents } from '@routinely/events';
import type { TestUser } from '@routinely/testkit';
import { expect, vi } from 'vitest';
import { type Harness, sqlRows } from './harness.js';

type TaskVerb = keyof typeof taskEvents;

/** A task of `user` as the task service's events carry it. */
export function taskOf(user: TestUser, overrides: Partial<TaskSnapshot> = {}): TaskSnapshot {
  return {
    id: randomUUID(),
    tenant_id: user.tenantId,
    user_id: user.userId,
    parent_task_id: null,
    title: 'Deep work on the quarterly plan',
    description: 'Private notes about the plan',
    status: 'scheduled',
    priority: 2,
    duration_min: 60,
    tags: [],
    deadline_at: null,
    chosen_slot_start: null,
    chosen_slot_end: null,
    reminder_channels: [],
    reminder_offset_min: 0,
    updated_at: '2026-11-21T08:00:00.000Z',
    version: 1,
    ...overrides,
  };
}

export const slot = (start: string, minutes = 60) => ({
  chosen_slot_start: new Date(start).toISOString(),
  chosen_slot_end: new Date(Date.parse(start) + minutes * 60_000).toISOString(),
});

/** The task service's events through real JetStream, to the integration service's durable consumer. */
export function taskPublisher(h: Harness, transport: EventTransport) {
  const event = (verb: TaskVerb, task: TaskSnapshot) =>
    makeEvent(taskEvents[verb], { tenantId: task.tenant_id, userId: task.user_id, at: h.clock.now() }, { task });
  return {
    event,
    async publish(verb: TaskVerb, task: TaskSnapshot) {
      const envelope = event(verb, task);
      await transport.publish(envelope);
      return envelope;
    },
  };
}

/** Waits until the consumer recorded `version` of every task (or a newer one). */
export async function recorded(h: Harness, versions: Record<string, number>): Promise<void> {
  await vi.waitFor(
    async () => {
      const rows = await sqlRows<{ task_id: string; version: number }>(
        h.orm,
        "select task_id, version from write_back_tasks where task_id = any(string_to_array(?, ',')::uuid[])",
        [Object.keys(versions).join(',')],
      );
      const seen = new Map(rows.map((r) => [r.task_id, Number(r.version)]));
      for (const [id, version] of Object.entries(versions)) expect(seen.get(id) ?? -1).toBeGreaterThanOrEqual(version);
    },
    { timeout: 15_000, interval: 50 },
  );
}

/**
 * Runs write-back passes by hand (the worker is off in these tests) until one writes nothing and no change is
 * left that a pass could write now. A pass skips rows a consumer transaction still has locked (SKIP LOCKED: an
 * older event's upsert locks the row even when it changes nothing), so a pass of 0 alone does not mean done.
 */
export async function drain(h: Harness): Promise<number> {
  let total = 0;
  for (let i = 0; i < 100; i++) {
    const written = await h.service.workers.writeBack();
    total += written;
    if (written === 0 && (await writable(h)) === 0) return total;
    if (written === 0) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('write-back did not settle');
}

async function writable(h: Harness): Promise<number> {
  const [row] = await sqlRows<{ n: string }>(
    h.orm,
    `select count(*) as n from write_back_tasks t
     join integrations i on i.tenant_id = t.tenant_id and i.write_back_user = t.user_id
     where t.pending and (t.claimed_until is null or t.claimed_until <= ?) and i.status = 'active'
       and i.write_back_calendar_id is not null and (i.write_back_retry_at is null or i.write_back_retry_at <= ?)`,
    [h.clock.now(), h.clock.now()],
  );
  return Number(row?.n ?? 0);
}

/** Connects `provider` for a fresh user and turns write-back on; answers the user, integration and calendar. */
export async function writingUser(h: Harness, provider: 'google' | 'microsoft', body: Record<string, unknown> = {}) {
  const user = h.tokens.user();
  const { integrationId } = await h.connect(user, provider);
  const res = await h.call(user, 'PATCH', `/service/integrations/${integrationId}`, {
    write_back: { enabled: true, ...body },
  });
  expect(res.statusCode, res.body).toBe(200);
  await h.service.workers.writeBack();
  const calendarId = await writeBackCalendar(h, integrationId);
  expect(calendarId).not.toBeNull();
  return { user, integrationId, calendarId: String(calendarId) };
}

export async function writeBackCalendar(h: Harness, integrationId: string): Promise<string | null> {
  const [row] = await sqlRows<{ calendar: string | null }>(
    h.orm,
    'select write_back_calendar_id as calendar from integrations where id = ?',
    [integrationId],
  );
  return row?.calendar ?? null;
}
