import type { Orm } from '@routinely/db';
import type { EventEnvelope, EventTransport } from '@routinely/events';
import { Server, startRpcServer, stopRpcServer } from '@routinely/grpc';
import { ManualClock, type ServiceName } from '@routinely/platform';
import type { SchedulerServiceDeps } from '@routinely/scheduler';
import { taskModule } from '@routinely/task';
import { type CallAs, startServiceHarness, type TestTokens, type TestUser } from '@routinely/testkit';
import { expect, vi } from 'vitest';
import { INTERNAL_SECRET, NO_PEER } from './internal.js';
import { type Harness, ok, startSchedulerHarness } from './scheduler-harness.js';

/**
 * The scheduler with a real task service on one event transport (each one's events reach the other's consumers
 * as in a deployment): the task service serves gRPC on loopback and the scheduler calls it (runs, import
 * quotas); the task service never calls the scheduler (ADR 056).
 */
export interface RunHarness {
  scheduler: Harness;
  /** The task service; `orm` reaches its database for rows the API no longer writes (legacy data). */
  task: { call: CallAs; orm: Orm; tokens: TestTokens; close(): Promise<void> };
  clock: ManualClock;
  /** Where the task service answers gRPC (for spawned scheduler instances). */
  grpcAddresses: Partial<Record<ServiceName, string>>;
  /** The transport both services publish to and consume from. */
  transport: EventTransport;
  close(): Promise<void>;
}

export async function startRunHarness(
  env: Record<string, string> = {},
  extra: Partial<SchedulerServiceDeps> = {},
  /** The task service's environment beyond the import worker's short poll. */
  taskEnv: Record<string, string> = {},
): Promise<RunHarness> {
  const clock = new ManualClock();
  const transport = taskModule.local.transport();
  const task = await startServiceHarness(taskModule, {
    env: { IMPORT_WORKER_POLL_MS: '20', ...taskEnv },
    clock,
    transport,
    internalSecret: INTERNAL_SECRET,
    // The dashboard's peers are not part of these tests: a loopback port nothing listens on.
    grpcAddresses: { delivery: NO_PEER, integration: NO_PEER },
  });
  const taskServer = new Server();
  task.service.addGrpc?.(taskServer);
  const grpcAddresses: Partial<Record<ServiceName, string>> = {
    task: await startRpcServer(taskServer, '127.0.0.1', 0),
  };
  const scheduler = await startSchedulerHarness(
    { SCHEDULER_RUN_POLL_MS: '50', ...env },
    { extra, clock, grpcAddresses, transport },
  );
  return {
    scheduler,
    task: { call: task.call, orm: task.orm, tokens: task.tokens, close: task.close },
    clock,
    grpcAddresses,
    transport,
    close: async () => {
      await scheduler.close();
      await task.close();
      await stopRpcServer(taskServer);
      await transport.close();
    },
  };
}

/** Creates a task through the task service's API and answers it. */
export async function createTask(h: RunHarness, user: TestUser, body: Record<string, unknown>) {
  const res = await h.task.call(user, 'POST', '/service/tasks', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; status: string; chosen_slot_start: string | null; chosen_slot_end: string | null };
}

export async function getTask(h: RunHarness, user: TestUser, id: string) {
  const res = await h.task.call(user, 'GET', `/service/tasks/${id}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { id: string; status: string; chosen_slot_start: string | null; chosen_slot_end: string | null };
}

/**
 * Publishes a run request three times (a redelivery of one envelope and a republished copy) and waits until the
 * run under `runId` completed: what the consumers of task's run requests must turn into exactly one run.
 */
export async function requestRunThrice(h: RunHarness, user: TestUser, runId: string, request: () => EventEnvelope) {
  const once = request();
  for (const event of [once, once, request()]) {
    await h.transport.publish(event);
    await h.transport.whenHandled?.(event.id);
  }
  return vi.waitFor(
    async () => {
      const body = await ok(await h.scheduler.call(user, 'GET', `/service/schedule/runs/${runId}`));
      expect(body.status).toBe('completed');
      return body;
    },
    { timeout: 20_000, interval: 50 },
  );
}
