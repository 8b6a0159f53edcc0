import type { Orm } from '@routinely/db';
import type { EventEnvelope, EventTransport } from '@routinely/events';
import { Server, startRpcServer, stopRpcServer } from '@routinely/grpc';
import { ManualClock, type ServiceName } from '@routinely/platform';
import { type CallAs, type FakeLlmServer, startServiceHarness, type TestUser } from '@routinely/testkit';
import { expect, vi } from 'vitest';
// The task service by a relative path: @routinely/task already depends on @routinely/scheduler (import
// quotas), so a package dependency back would be a cycle the build refuses. Tests import sources anyway.
import { taskModule } from '../../task/src/index.js';
import type { SchedulerServiceDeps } from '../src/index.js';
import { type Harness, INTERNAL_SECRET, ok, startHarness } from './harness.js';

/** USD per million tokens of the fake LLM's `test-model`. */
export const FAKE_LLM_PRICE = { input: 1, output: 2 };

/** The scheduler's model variables for the fake LLM: OpenAI (and, when asked, Anthropic) as `test-model`. */
export function fakeLlmEnv(llm: FakeLlmServer, options: { anthropic?: boolean } = {}): Record<string, string> {
  return {
    OPENAI_API_KEY: llm.apiKey,
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    OPENAI_MODEL: 'test-model',
    ...(options.anthropic
      ? { ANTHROPIC_API_KEY: llm.apiKey, ANTHROPIC_BASE_URL: llm.anthropicBaseUrl, ANTHROPIC_MODEL: 'test-model' }
      : {}),
    LLM_PRICES: JSON.stringify({ 'test-model': FAKE_LLM_PRICE }),
  };
}

/**
 * The scheduler with a real task service on one event transport (the task service's events reach the
 * scheduler's consumers as in a deployment): each serves gRPC on loopback, the scheduler calls the task service
 * (runs) and the task service the scheduler (import quotas, the dashboard's figures).
 */
export interface RunHarness {
  scheduler: Harness;
  /** The task service; `orm` reaches its database for rows the API no longer writes (legacy data). */
  task: { call: CallAs; orm: Orm; close(): Promise<void> };
  clock: ManualClock;
  /** The scheduler's gRPC address (what a spawned instance's peers use). */
  schedulerAddress: string;
  /** Where the task service answers gRPC (for spawned scheduler instances). */
  grpcAddresses: Partial<Record<ServiceName, string>>;
  /** The transport both services publish to and consume from. */
  transport: EventTransport;
  close(): Promise<void>;
}

export async function startRunHarness(
  env: Record<string, string> = {},
  extra: Partial<SchedulerServiceDeps> = {},
): Promise<RunHarness> {
  const clock = new ManualClock();
  // Filled once the task service listens: the scheduler resolves the address on its first call.
  const grpcAddresses: Partial<Record<ServiceName, string>> = {};
  const transport = taskModule.local.transport();
  const scheduler = await startHarness(
    { SCHEDULER_RUN_POLL_MS: '50', ...env },
    { extra, clock, grpcAddresses, transport },
  );
  const schedulerServer = new Server();
  scheduler.service.addGrpc?.(schedulerServer);
  const schedulerAddress = await startRpcServer(schedulerServer, '127.0.0.1', 0);
  const task = await startServiceHarness(taskModule, {
    env: { IMPORT_WORKER_POLL_MS: '20' },
    clock,
    transport,
    internalSecret: INTERNAL_SECRET,
    // The dashboard's peers are not part of these tests: a loopback port nothing listens on.
    grpcAddresses: { scheduler: schedulerAddress, delivery: '127.0.0.1:9', integration: '127.0.0.1:9' },
  });
  const taskServer = new Server();
  task.service.addGrpc?.(taskServer);
  grpcAddresses.task = await startRpcServer(taskServer, '127.0.0.1', 0);
  return {
    scheduler,
    task: { call: task.call, orm: task.orm, close: task.close },
    clock,
    schedulerAddress,
    grpcAddresses,
    transport,
    close: async () => {
      await scheduler.close();
      await stopRpcServer(schedulerServer);
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
