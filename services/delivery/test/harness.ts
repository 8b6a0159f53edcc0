import { type Orm, Sql } from '@routinely/db';
import { type EventEnvelope, type EventTransport, makeEvent, type TaskSnapshot, taskEvents } from '@routinely/events';
import { type Clock, type Logger, type ManualClock, parseConfig } from '@routinely/platform';
import {
  type CallAs,
  quietLogger,
  type RegisteredRoute,
  startServiceHarness,
  type TestDatabase,
  type TestTokens,
  type TestUser,
  WebhookReceiver,
} from '@routinely/testkit';
import type { FastifyInstance } from 'fastify';
import { v7 as uuidv7 } from 'uuid';
import { type DeliveryDeps, type DeliveryService, deliveryEngine } from '../src/app.js';
import { configSchema } from '../src/config.js';
import { deliveryModule } from '../src/module.js';
import type { DeliveryWorker } from '../src/workers/delivery-worker.js';

export interface Harness {
  db: TestDatabase;
  orm: Orm;
  service: DeliveryService;
  app: FastifyInstance;
  routes: RegisteredRoute[];
  tokens: TestTokens;
  transport: EventTransport;
  /** `app.inject` as `user` (no token when null), the path written after /api/v1. */
  call: CallAs;
  /**
   * Passes driven by hand on the manual clock: the service's own sending side composed again (`deliveryEngine`)
   * on the same database, as a second replica's would be, while the service's workers stay off.
   */
  workers: {
    fireDueReminders(): Promise<number>;
    runDueDeliveries(): Promise<number>;
    /** For crash tests: `kill()` abandons the sends in flight as a dead process would, `revive()` starts again. */
    deliveries: DeliveryWorker;
  };
  close(): Promise<void>;
}

export type HarnessOptions = {
  clock: Clock;
  env?: Record<string, string>;
  transport?: EventTransport;
  db?: Harness['db'];
  logger?: Logger;
} & Partial<Pick<DeliveryDeps, 'mailer' | 'resolveHost' | 'allowCidrs'>>;

/** The delivery service from its module (the shared harness), with its consumers subscribed. */
export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const { clock, env, transport, db, logger, ...deps } = options;
  const serviceEnv = {
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    DELIVERY_WORKERS_ENABLED: 'false',
    WEBHOOK_TIMEOUT_MS: '2000',
    ...env,
  };
  const h = await startServiceHarness(deliveryModule, {
    clock,
    env: serviceEnv,
    deps,
    ...(transport ? { transport } : {}),
    ...(db ? { db } : {}),
    ...(logger ? { logger } : {}),
  });
  const engine = deliveryEngine({
    ...deps,
    config: parseConfig(configSchema, serviceEnv),
    logger: logger ?? quietLogger(),
    clock,
    db: Sql.of(h.orm),
  });
  const workers = {
    fireDueReminders: () => engine.firer.fireDue(),
    runDueDeliveries: () => engine.deliveries.runDue(),
    deliveries: engine.deliveries,
  };
  const close = async () => {
    await engine.deliveries.drain(5_000);
    await engine.sender.close();
    if (!deps.mailer) await engine.mailer.close();
    await h.close();
  };
  return { ...h, workers, close };
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
    version: 1,
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

/** Publishes an event the way a relay would and, in process, waits until every consumer handled it. */
export async function publishHandled(transport: EventTransport, event: EventEnvelope): Promise<EventEnvelope> {
  await transport.publish(event);
  await transport.whenHandled?.(event.id);
  return event;
}

export async function publishTask(transport: EventTransport, name: TaskEventName, task: TaskSnapshot, at: Date) {
  const event = makeEvent(taskEvents[name], { tenantId: task.tenant_id, userId: task.user_id, at }, { task });
  return publishHandled(transport, event);
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
    await publishTask(h.transport, 'taskScheduled', task, clock.now());
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

/** The tests read what the service stored through the testkit's helper (one for every service). */
export { sqlRows } from '@routinely/testkit';
