import {
  authEvents,
  type EventEnvelope,
  type EventTransport,
  type ExternalEventSnapshot,
  integrationEvents,
  makeEvent,
} from '@routinely/events';
import type { TestUser } from '@routinely/testkit';
import { v7 as uuidv7 } from 'uuid';
import { expect } from 'vitest';
import { call, createTask, type Harness } from './harness.js';

/** Publishes an event the way the producer's relay would and, in process, waits until every consumer handled it. */
export async function publishHandled(transport: EventTransport, event: EventEnvelope): Promise<EventEnvelope> {
  await transport.publish(event);
  await transport.whenHandled?.(event.id);
  return event;
}

/** A provider event as the integration service snapshots it (a fresh id and integration unless given). */
export function externalFor(overrides: Partial<ExternalEventSnapshot> = {}): ExternalEventSnapshot {
  return {
    id: uuidv7(),
    integration_id: uuidv7(),
    provider: 'google',
    external_id: `ext-${uuidv7()}`,
    title: 'Dentist',
    start: '2026-11-24T09:00:00.000Z',
    end: '2026-11-24T10:00:00.000Z',
    all_day: false,
    status: 'confirmed',
    busy: true,
    version: 1,
    updated_at: '2026-11-21T08:00:00.000Z',
    ...overrides,
  };
}

const meta = (user: TestUser, at: Date) => ({ tenantId: user.tenantId, userId: user.userId, at });

export const upserted = (user: TestUser, event: ExternalEventSnapshot, at = new Date()) =>
  makeEvent(integrationEvents.eventUpserted, meta(user, at), { event });

export const deleted = (user: TestUser, event: ExternalEventSnapshot, at = new Date()) =>
  makeEvent(integrationEvents.eventDeleted, meta(user, at), { event });

export const revoked = (user: TestUser, integrationId: string, updatedAt: string, provider: 'google' | 'microsoft') =>
  makeEvent(integrationEvents.integrationRevoked, meta(user, new Date(updatedAt)), {
    integration: {
      id: integrationId,
      tenant_id: user.tenantId,
      user_id: user.userId,
      provider,
      status: 'revoked',
      account_email: null,
      last_error: null,
      updated_at: updatedAt,
    },
  });

/** Tells the task service the user's timezone the way the auth service does (a user-updated event). */
export function timezoneEvent(user: TestUser, timezone: string | null, at: Date) {
  return makeEvent(authEvents.userUpdated, meta(user, at), {
    user: { id: user.userId, tenant_id: user.tenantId, email: user.email, name: null, timezone, is_active: true },
  });
}

/** A task of `who` scheduled into [start, end) through the API. */
export async function scheduledTask(h: Harness, who: TestUser, title: string, start: string, end: string) {
  const task = await createTask(h, who, { title });
  const res = await call(h, who, 'PATCH', `/service/tasks/${task.id}`, {
    chosen_slot_start: start,
    chosen_slot_end: end,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { id: string; title: string; status: string };
}

/** GET /calendar/events as `who` with the query string given, asserting 200. */
export async function listEvents(h: Harness, who: TestUser, query: string) {
  const res = await call(h, who, 'GET', `/service/calendar/events?${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as {
    from: string;
    to: string;
    view: string;
    events: { id: string; source: string; title: string; start: string; end: string; busy: boolean; status: string }[];
  };
}
