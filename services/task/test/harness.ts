import type { EventTransport } from '@routinely/events';
import { Server, startRpcServer, stopRpcServer } from '@routinely/grpc';
import { ManualClock, type ServiceInstance, type ServiceName } from '@routinely/platform';
import { schedulerModule } from '@routinely/scheduler';
import { type CallAs, type ServiceHarness, startServiceHarness, type TestUser } from '@routinely/testkit';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { type TaskServiceDeps, taskModule } from '../src/index.js';

export const INTERNAL_SECRET = 'test-internal-secret-of-at-least-32-chars';

/** A loopback port nothing listens on (the discard port). */
export const NO_PEER = '127.0.0.1:9';

type Shared = ServiceHarness<Parameters<typeof taskModule.build>[0], TaskServiceDeps, ServiceInstance, ManualClock>;

/** What task tests use of the scheduler: its HTTP routes, its event transport and its gRPC address. */
export interface SchedulerHarness {
  address: string;
  transport: EventTransport;
  call: CallAs;
  close(): Promise<void>;
}

export interface Harness extends Omit<Shared, 'spawn'> {
  /** Another instance of the service on the same database (a restart, or a second replica), not started. */
  spawn(overrides?: Partial<TaskServiceDeps>): Promise<ServiceInstance>;
  /** The real scheduler (same clock, own database): its admin routes set this service's import limits. */
  scheduler: SchedulerHarness;
}

/** The scheduler from its module, serving gRPC on a free loopback port. */
async function startScheduler(
  clock: ManualClock,
  env: Record<string, string>,
  grpcAddresses: Partial<Record<ServiceName, string>>,
  transport: EventTransport,
): Promise<SchedulerHarness> {
  const harness = await startServiceHarness(schedulerModule, {
    env,
    clock,
    transport,
    internalSecret: INTERNAL_SECRET,
    grpcAddresses,
  });
  const server = new Server();
  harness.service.addGrpc?.(server);
  const address = await startRpcServer(server, '127.0.0.1', 0);
  return {
    address,
    transport: harness.transport,
    call: harness.call,
    close: async () => {
      await stopRpcServer(server);
      await harness.close();
    },
  };
}

/** The task service from its module on a fresh database (the shared harness), with a clock the test moves. */
export async function startHarness(
  env: Record<string, string> = {},
  options: {
    transport?: EventTransport;
    extra?: Partial<TaskServiceDeps>;
    /** The scheduler's environment. */
    schedulerEnv?: Record<string, string>;
  } = {},
): Promise<Harness> {
  const clock = new ManualClock();
  // One transport for both, as in a deployment: an import's auto_schedule reaches the scheduler as an event.
  const transport = options.transport ?? taskModule.local.transport();
  const shared = await startServiceHarness(taskModule, {
    env: { IMPORT_WORKER_POLL_MS: '20', ...env },
    clock,
    internalSecret: INTERNAL_SECRET,
    // Delivery and integration answer only the dashboard and health routes (test/dashboard-harness.ts starts
    // them); elsewhere nothing listens there and those figures come back null.
    grpcAddresses: { delivery: NO_PEER, integration: NO_PEER },
    transport,
    ...(options.extra ? { deps: options.extra } : {}),
  });
  const taskServer = new Server();
  shared.service.addGrpc?.(taskServer);
  const taskAddress = await startRpcServer(taskServer, '127.0.0.1', 0);
  // The scheduler calls this service (runs, import quotas); this service never calls it.
  const scheduler = await startScheduler(clock, options.schedulerEnv ?? {}, { task: taskAddress }, transport);
  return {
    ...shared,
    scheduler,
    spawn: async (overrides = {}) => (await shared.spawn({ deps: overrides })).service,
    close: async () => {
      await scheduler.close();
      await stopRpcServer(taskServer);
      await shared.close();
      if (!options.transport) await transport.close();
    },
  };
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
  const result = (await h.orm.em.getKnex().raw('select payload from outbox order by id')) as unknown as {
    rows: { payload: { type: string; data: { task?: Record<string, unknown> } } }[];
  };
  // Only task events (a routine's placement request carries no task).
  return result.rows
    .filter((r) => r.payload.data.task)
    .map((r) => ({
      type: r.payload.type,
      taskId: String(r.payload.data.task?.id),
      task: r.payload.data.task as Record<string, unknown>,
    }));
}
