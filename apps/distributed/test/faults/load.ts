import type { ServiceName } from '@routinely/platform';
import { createTestDatabase, testHostEnv, uniqueName, WebhookReceiver, waitFor } from '@routinely/testkit';
import { expect } from 'vitest';
import { startTopology, type Topology, type TopologyOptions } from '../../src/topology.js';

/** One GET per service, owned by it, answered for any signed-in user: "does this service still answer?". */
export const PROBES: Record<ServiceName, string> = {
  auth: '/api/v1/auth/me',
  calendar: '/api/v1/calendars',
  task: '/api/v1/service/tasks',
  scheduler: '/api/v1/service/settings/me',
  integration: '/api/v1/service/integrations',
  delivery: '/api/v1/service/webhooks',
};

export interface FaultWorld {
  topology: Topology;
  receiver: WebhookReceiver;
  token: string;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown; ms: number }>;
  close(): Promise<void>;
}

/** The topology on a fresh database, a webhook receiver, and one user whose webhook endpoint is the receiver. */
export async function startFaultWorld(
  options: Omit<TopologyOptions, 'env'> & { env?: Record<string, string>; databaseUrl?: string } = {},
) {
  // A database of its own on the shared server, unless the test brings its own server.
  const db = options.databaseUrl ? { url: options.databaseUrl, drop: async () => {} } : await createTestDatabase();
  const topology = await startTopology({
    ...options,
    env: {
      ...testHostEnv(db.url, uniqueName('faults')),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      SHUTDOWN_DRAIN_MS: '0',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
      ...options.env,
    },
    output: 'buffer',
  });
  let secret = '';
  const receiver = await WebhookReceiver.start({ secrets: () => [secret], responder: () => ({ status: 200 }) });
  const base = topology.gateway.url;
  const call = async (method: string, path: string, body?: unknown, token?: string) => {
    const started = performance.now();
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, ms: performance.now() - started };
  };
  const registered = await call('POST', '/api/v1/auth/register', {
    email: `faults-${crypto.randomUUID().slice(0, 8)}@example.test`,
    password: 'correct horse battery',
    tenant_id: crypto.randomUUID(),
  });
  if (registered.status !== 201) throw new Error(`register: ${registered.status} ${JSON.stringify(registered.body)}`);
  const token = String((registered.body as { access_token: string }).access_token);
  const endpoint = await call('POST', '/api/v1/service/webhooks', { name: 'r', url: `${receiver.url}/hooks` }, token);
  if (endpoint.status !== 201) throw new Error(`webhook: ${endpoint.status}`);
  secret = String((endpoint.body as { secret: string }).secret);
  const world: FaultWorld = {
    topology,
    receiver,
    token,
    call: (method, path, body) => call(method, path, body, token),
    close: async () => {
      await receiver.close();
      await topology.close();
      await db.drop();
    },
  };
  return world;
}

export interface Outcome {
  at: number;
  op: 'create' | 'schedule' | 'move';
  status: number;
  ms: number;
  /** The problem's code and detail of an answer that failed (what to look at when a fault test fails). */
  problem?: string;
}

const REMINDER_OFFSET_MIN = 1;
const slotFiringIn = (seconds: number) => {
  const start = new Date(Date.now() + seconds * 1000 + REMINDER_OFFSET_MIN * 60_000);
  return { chosen_slot_start: start.toISOString(), chosen_slot_end: new Date(start.getTime() + 300_000).toISOString() };
};

/**
 * A steady stream of task writes, slot changes and due reminders: every tick creates a task with a webhook
 * reminder and schedules it to fire 6-20 s later, or moves the slot of a task whose reminder is still ahead.
 */
export class Load {
  readonly outcomes: Outcome[] = [];
  /** frozen: a move failed, so where its slot is (and when it fires) is only known to the server. */
  private readonly tasks: { id: string; firesAt: number; frozen?: boolean }[] = [];
  private running = true;
  private readonly loop: Promise<void>;

  constructor(
    private readonly world: FaultWorld,
    tickMs = 400,
  ) {
    this.loop = (async () => {
      for (let tick = 0; this.running; tick++) {
        const next = new Promise((resolve) => setTimeout(resolve, tickMs));
        await (tick % 3 === 2 ? this.move() : this.create()).catch(() => {});
        await next;
      }
    })();
  }

  private record(op: Outcome['op'], result: { status: number; ms: number; body?: unknown }) {
    const outcome: Outcome = { at: Date.now(), op, status: result.status, ms: result.ms };
    if (result.status >= 300) {
      const body = result.body as { code?: string; detail?: string } | undefined;
      outcome.problem = `${body?.code ?? 'no code'}: ${body?.detail ?? ''}`;
    }
    this.outcomes.push(outcome);
  }

  private async create() {
    const created = await this.world.call('POST', '/api/v1/service/tasks', {
      title: 'Steady reminder',
      reminder_channels: ['webhook'],
      reminder_offset_min: REMINDER_OFFSET_MIN,
      duration_min: 5,
    });
    this.record('create', created);
    if (created.status !== 201) return;
    const id = String((created.body as { id: string }).id);
    const seconds = 6 + Math.floor(Math.random() * 14);
    const scheduled = await this.world.call('PATCH', `/api/v1/service/tasks/${id}`, slotFiringIn(seconds));
    this.record('schedule', scheduled);
    this.tasks.push({ id, firesAt: Date.now() + seconds * 1000, frozen: scheduled.status !== 200 });
  }

  /** Moves a task whose reminder is at least 5 s ahead to another time 6-20 s ahead. */
  private async move() {
    const candidates = this.tasks.filter((t) => !t.frozen && t.firesAt > Date.now() + 5_000);
    const task = candidates[Math.floor(Math.random() * candidates.length)];
    if (!task) return this.create();
    const seconds = 6 + Math.floor(Math.random() * 14);
    const moved = await this.world.call('PATCH', `/api/v1/service/tasks/${task.id}`, slotFiringIn(seconds));
    this.record('move', moved);
    if (moved.status === 200) task.firesAt = Date.now() + seconds * 1000;
    else task.frozen = true;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** Requests in [from, to): how many, how many did not succeed, and those (for the assertion's message). */
  window(from: number, to: number) {
    const inside = this.outcomes.filter((o) => o.at >= from && o.at < to);
    const failures = inside.filter((o) => o.status >= 300);
    return { requests: inside.length, failed: failures.length, failures: JSON.stringify(failures) };
  }

  /**
   * After the load stopped: the reminders the product owes (every task the API shows scheduled, its slot read
   * back from the API, whatever the client saw) against what the receiver got, by task and by event id.
   */
  async reconcile(maxWaitMs = 90_000) {
    const tasks: { id: string; chosen_slot_start: string | null }[] = [];
    for (let offset = 0; ; offset += 500) {
      const page = await this.world.call('GET', `/api/v1/service/tasks?limit=500&offset=${offset}`);
      if (page.status !== 200) throw new Error(`list tasks: ${page.status}`);
      tasks.push(...(page.body as typeof tasks));
      if ((page.body as unknown[]).length < 500) break;
    }
    // Only the load's own tasks: others (a test's schedule runs) may sit days ahead.
    const mine = new Set(this.tasks.map((t) => t.id));
    const owed = tasks.filter((t) => mine.has(t.id) && t.chosen_slot_start !== null);
    const lastFire = Math.max(
      ...owed.map((t) => Date.parse(String(t.chosen_slot_start)) - REMINDER_OFFSET_MIN * 60_000),
    );
    const until = Math.max(Date.now(), lastFire) + maxWaitMs;
    const byTask = () => {
      const counts = new Map<string, number>();
      for (const w of this.world.receiver.received) {
        const id = String((w.json as { task?: { id?: string } }).task?.id);
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      return counts;
    };
    while (Date.now() < until && owed.some((t) => !byTask().has(t.id))) {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    // Late duplicates would arrive within a worker pass or two.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const delivered = byTask();
    const eventIds = this.world.receiver.received.map((w) => String(w.headers['x-service-event-id']));
    return {
      owed: owed.length,
      lost: owed.filter((t) => !delivered.has(t.id)).map((t) => t.id),
      duplicatedTasks: [...delivered].filter(([, n]) => n > 1).map(([id]) => id),
      duplicatedEvents: eventIds.length - new Set(eventIds).size,
      unverified: this.world.receiver.received.filter((w) => !w.verified).length,
    };
  }
}

/** Polls until `check` holds, returning how long it took (a figure for the report, never asserted). */
export async function waitUntil(check: () => Promise<boolean>, timeoutMs = 60_000): Promise<number> {
  const started = Date.now();
  await waitFor(check, { what: 'the condition', timeoutMs, intervalMs: 100 });
  return Date.now() - started;
}

/**
 * The end of a fault group: the load stops, `report` gets the reconciliation (before any assertion, so a failing
 * run still prints it), and every reminder the product owes arrived exactly once (by task and by event id),
 * signed as the receiver expects unless `signatures` is false.
 */
export async function expectEachReminderOnce(
  load: Load,
  minOwed: number,
  report: (outcome: Awaited<ReturnType<Load['reconcile']>>) => void,
  options: { signatures?: boolean } = {},
): Promise<void> {
  await load.stop();
  const outcome = await load.reconcile();
  report(outcome);
  expect(outcome.owed).toBeGreaterThan(minOwed);
  expect(outcome.lost).toEqual([]);
  expect(outcome.duplicatedEvents).toBe(0);
  expect(outcome.duplicatedTasks).toEqual([]);
  if (options.signatures !== false) expect(outcome.unverified).toBe(0);
}
