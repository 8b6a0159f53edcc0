import { type Orm, openOrm } from '@routinely/db';
import { type EventTransport, InProcessTransport } from '@routinely/events';
import { InternalAuth } from '@routinely/grpc';
import { ManualClock, type ServiceInstance } from '@routinely/platform';
import { buildTestHttpApp, createTestDatabase, quietLogger, TestTokens, type TestUser } from '@routinely/testkit';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { buildService, configSchema, dbConfig, type TaskServiceDeps } from '../src/index.js';

export const INTERNAL_SECRET = 'test-internal-secret-of-at-least-32-chars';

export interface Harness {
  orm: Orm;
  clock: ManualClock;
  tokens: TestTokens;
  app: FastifyInstance;
  service: ServiceInstance;
  /** Another instance of the service on the same database (a restart, or a second replica). */
  spawn(overrides?: Partial<TaskServiceDeps>): ServiceInstance;
  close(): Promise<void>;
}

/** The task service on a fresh database, behind the platform HTTP app, with a clock the test moves. */
export async function startHarness(
  env: Record<string, string> = {},
  options: { transport?: EventTransport; extra?: Partial<TaskServiceDeps> } = {},
): Promise<Harness> {
  const db = await createTestDatabase();
  const orm = await openOrm(db.url, dbConfig);
  const clock = new ManualClock();
  const tokens = await TestTokens.create(clock);
  const transport = options.transport ?? new InProcessTransport();
  const deps: TaskServiceDeps = {
    config: configSchema.parse({ IMPORT_WORKER_POLL_MS: '20', ...env }),
    logger: quietLogger(),
    clock,
    orm,
    transport,
    internalAuth: new InternalAuth(INTERNAL_SECRET, 'task'),
    ...options.extra,
  };
  const service = buildService(deps);
  await service.start();
  const app = await buildTestHttpApp(service, tokens);
  const spawned: ServiceInstance[] = [];
  return {
    orm,
    clock,
    tokens,
    app,
    service,
    spawn: (overrides = {}) => {
      const instance = buildService({ ...deps, ...overrides });
      spawned.push(instance);
      return instance;
    },
    close: async () => {
      await app.close();
      await service.stop();
      for (const instance of spawned) await instance.stop();
      await transport.close();
      await orm.close();
      await db.drop();
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
  const auth = user ? await h.tokens.auth(user) : {};
  return h.app.inject({
    method,
    url: `/api/v1${path}`,
    headers: { ...auth, ...headers },
    ...(payload === undefined ? {} : typeof payload === 'string' ? { payload } : { payload: payload as object }),
  });
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
    rows: { payload: { type: string; data: { task: Record<string, unknown> } } }[];
  };
  return result.rows.map((r) => ({
    type: r.payload.type,
    taskId: String(r.payload.data.task.id),
    task: r.payload.data.task,
  }));
}
