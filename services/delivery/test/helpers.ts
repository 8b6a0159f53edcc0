import { type Orm, openOrm } from '@routinely/db';
import { type EventTransport, InProcessTransport, makeEvent, type TaskSnapshot, taskEvents } from '@routinely/events';
import { type Clock, type Logger, type ManualClock, parseConfig } from '@routinely/platform';
import {
  buildTestHttpApp,
  createTestDatabase,
  quietLogger,
  TestTokens,
  type TestUser,
  WebhookReceiver,
} from '@routinely/testkit';
import type { FastifyInstance } from 'fastify';
import { v7 as uuidv7 } from 'uuid';
import { buildService, type DeliveryDeps, type DeliveryService } from '../src/app.js';
import { configSchema } from '../src/config.js';
import { dbConfig } from '../src/db/config.js';

export interface Harness {
  db: Awaited<ReturnType<typeof createTestDatabase>>;
  orm: Orm;
  service: DeliveryService;
  app: FastifyInstance;
  tokens: TestTokens;
  transport: EventTransport;
  close(): Promise<void>;
}

export type HarnessOptions = {
  clock: Clock;
  env?: Record<string, string>;
  transport?: EventTransport;
  db?: Harness['db'];
  logger?: Logger;
} & Partial<Pick<DeliveryDeps, 'mailer' | 'resolveHost' | 'allowCidrs'>>;

/** The delivery service on a fresh database, behind the platform HTTP app, with its consumers subscribed. */
export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const db = options.db ?? (await createTestDatabase());
  const orm = await openOrm(db.url, dbConfig);
  const config = parseConfig(configSchema, {
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    DELIVERY_WORKERS_ENABLED: 'false',
    WEBHOOK_TIMEOUT_MS: '2000',
    ...options.env,
  });
  const transport = options.transport ?? new InProcessTransport();
  const service = buildService({
    config,
    logger: options.logger ?? quietLogger(),
    clock: options.clock,
    orm,
    transport,
    ...(options.mailer ? { mailer: options.mailer } : {}),
    ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
    ...(options.allowCidrs ? { allowCidrs: options.allowCidrs } : {}),
  });
  await service.start();
  const tokens = await TestTokens.create(options.clock);
  const app = await buildTestHttpApp(service, tokens);
  return {
    db,
    orm,
    service,
    app,
    tokens,
    transport,
    async close() {
      await app.close();
      await service.stop();
      await orm.close();
      if (!options.db) await db.drop();
    },
  };
}

export function taskFor(user: TestUser, overrides: Partial<TaskSnapshot> = {}): TaskSnapshot {
  return {
    id: uuidv7(),
    tenant_id: user.tenantId,
    user_id: user.userId,
    parent_task_id: null,
    title: 'Water the plants',
    description: 'All of them',
    status: 'scheduled',
    priority: 2,
    duration_min: 30,
    tags: ['home'],
    deadline_at: null,
    chosen_slot_start: null,
    chosen_slot_end: null,
    reminder_channels: ['inapp'],
    reminder_offset_min: 10,
    updated_at: new Date().toISOString(),
    ...overrides,
  };
}

/**
 * The harness plus a loopback receiver on the same clock (so signature timestamps are judged by test time),
 * accepting whatever `secrets()` returns at each request. `close` ends both.
 */
export async function startWithReceiver(options: HarnessOptions, secrets: () => readonly string[]) {
  const h = await startHarness(options);
  const receiver = await WebhookReceiver.start({ secrets, now: () => options.clock.now().getTime() });
  const close = async () => {
    await receiver.close();
    await h.close();
  };
  return { h, receiver, close };
}

type TaskEventName = keyof typeof taskEvents;

/** Publishes a task event the way the task service's relay would (InProcess: handled before it resolves). */
export async function publishTask(transport: EventTransport, name: TaskEventName, task: TaskSnapshot, at: Date) {
  const event = makeEvent(taskEvents[name], { tenantId: task.tenant_id, userId: task.user_id, at }, { task });
  await transport.publish(event);
  return event;
}

/**
 * Publishes `count` scheduled tasks whose slot starts `slotInMin` minutes from now (30 minutes long), then
 * moves the clock to their remind_at (slot minus reminder_offset_min), so the next firing pass fires them.
 */
export async function scheduleDue(
  h: Harness,
  clock: ManualClock,
  user: TestUser,
  overrides: Partial<TaskSnapshot> & { slotInMin: number },
  count = 1,
): Promise<TaskSnapshot[]> {
  const { slotInMin, ...fields } = overrides;
  const start = clock.now().getTime() + slotInMin * 60_000;
  const tasks: TaskSnapshot[] = [];
  for (let i = 0; i < count; i++) {
    const task = taskFor(user, {
      chosen_slot_start: new Date(start).toISOString(),
      chosen_slot_end: new Date(start + 30 * 60_000).toISOString(),
      ...fields,
    });
    await publishTask(h.transport, 'scheduled', task, clock.now());
    tasks.push(task);
  }
  clock.advance((slotInMin - (tasks[0]?.reminder_offset_min ?? 0)) * 60_000);
  return tasks;
}

export async function createEndpoint(h: Harness, user: TestUser, body: Record<string, unknown>) {
  const res = await h.app.inject({
    method: 'POST',
    url: '/api/v1/service/webhooks',
    headers: await h.tokens.auth(user),
    payload: { name: 'hook', ...body },
  });
  if (res.statusCode !== 201) throw new Error(`create endpoint failed: ${res.statusCode} ${res.body}`);
  return res.json() as { id: string; secret: string; [k: string]: unknown };
}

export async function sqlRows<T = Record<string, unknown>>(orm: Orm, sql: string, params: unknown[] = []) {
  return orm.em.fork().getConnection().execute<T[]>(sql, params);
}
