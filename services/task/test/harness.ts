import { column, row, Sql } from '@routinely/db';
import type { EventTransport } from '@routinely/events';
import { ManualClock, type ServiceInstance } from '@routinely/platform';
import { outboxPayloads, type ServiceHarness, startServiceHarness, type TestUser } from '@routinely/testkit';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { z } from 'zod';
import { type TaskServiceDeps, taskModule } from '../src/index.js';

/** An outbox row of a placement request (task.series.occurrences_generated), read for assertions. */
export const placementRequestRow = row({
  payload: column.json(z.object({ data: z.object({ series_id: z.string(), task_ids: z.array(z.string()) }) })),
});

/** Any row, every column kept: for assertions that a table holds nothing (or what it holds). */
export const anyRow = z.looseObject({});

export const INTERNAL_SECRET = 'test-internal-secret-of-at-least-32-chars';

/** A loopback port nothing listens on (the discard port). */
const NO_PEER = '127.0.0.1:9';

type Shared = ServiceHarness<Parameters<typeof taskModule.build>[0], TaskServiceDeps, ServiceInstance, ManualClock>;

export interface Harness extends Omit<Shared, 'spawn'> {
  /** Another instance of the service on the same database (a restart, or a second replica), not started. */
  spawn(overrides?: Partial<TaskServiceDeps>): Promise<ServiceInstance>;
}

/** The task service from its module on a fresh database (the shared harness), with a clock the test moves. */
export async function startHarness(
  env: Record<string, string> = {},
  options: {
    transport?: EventTransport;
    extra?: Partial<TaskServiceDeps>;
  } = {},
): Promise<Harness> {
  const shared = await startServiceHarness(taskModule, {
    env: { IMPORT_WORKER_POLL_MS: '20', ...env },
    clock: new ManualClock(),
    internalSecret: INTERNAL_SECRET,
    // Delivery and integration answer only the dashboard and health routes (test-services/ starts them with this
    // service); here nothing listens there and those figures come back null.
    grpcAddresses: { delivery: NO_PEER, integration: NO_PEER },
    ...(options.transport ? { transport: options.transport } : {}),
    ...(options.extra ? { deps: options.extra } : {}),
  });
  return { ...shared, spawn: async (overrides = {}) => (await shared.spawn({ deps: overrides })).service };
}

/** `app.inject` as a user (or without a token when `user` is null), under /api/v1. */
export async function call(
  h: Harness,
  user: TestUser | null,
  method: InjectOptions['method'],
  path: string,
  payload?: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return h.call(user, method, path, payload, headers);
}

/** Creates a task as `who` through the API (asserting 201) and returns its JSON. */
export async function createTask(h: Harness, who: TestUser, body: Record<string, unknown>) {
  const res = await call(h, who, 'POST', '/service/tasks', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** A chain of `n` tasks, each the child of the previous; returns them root first. */
export async function createChain(h: Harness, who: TestUser, n: number) {
  const out: Awaited<ReturnType<typeof createTask>>[] = [];
  for (let i = 0; i < n; i++) {
    out.push(await createTask(h, who, { title: `level ${i + 1}`, parent_task_id: out.at(-1)?.id ?? null }));
  }
  return out;
}

/** Outbox events (type and task id) in the order they were written. */
export async function outboxEvents(
  h: Harness,
): Promise<{ type: string; taskId: string; task: Record<string, unknown> }[]> {
  const events = await outboxPayloads<{ type: string; data: { task?: Record<string, unknown> } }>(h.orm);
  // Only task events (a routine's placement request carries no task).
  return events
    .filter((e) => e.data.task)
    .map((e) => ({ type: e.type, taskId: String(e.data.task?.id), task: e.data.task as Record<string, unknown> }));
}

/** A new user whose timezone the auth service reported (the task service keeps it from auth's events). */
export async function userInTimezone(h: Harness, timezone: string): Promise<TestUser> {
  const user = h.tokens.user();
  await Sql.of(h.orm).run(
    'insert into user_timezones (tenant_id, user_id, timezone, updated_at) values (?, ?, ?, now())',
    [user.tenantId, user.userId, timezone],
  );
  return user;
}
