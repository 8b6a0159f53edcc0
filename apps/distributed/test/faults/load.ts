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
/** A slot the load asked for, and when the answer came. */
interface AskedSlot {
  start: number;
  answeredAt: number;
}

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
  /**
   * frozen: a move failed, so where its slot is (and when it fires) is only known to the server. slots: every slot
   * the client asked for, with when the answer came (a failed move's too: the server may have applied it).
   */
  private readonly tasks: { id: string; firesAt: number; frozen?: boolean; slots: AskedSlot[] }[] = [];
  /** When a fault held events back: from the kill until the services answered and published again. */
  private readonly faults: { from: number; to: number }[] = [];
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
    const slot = slotFiringIn(seconds);
    const scheduled = await this.world.call('PATCH', `/api/v1/service/tasks/${id}`, slot);
    this.record('schedule', scheduled);
    this.tasks.push({
      id,
      firesAt: Date.now() + seconds * 1000,
      frozen: scheduled.status !== 200,
      slots: [{ start: Date.parse(slot.chosen_slot_start), answeredAt: Date.now() }],
    });
  }

  /** Moves a task whose reminder is at least 5 s ahead to another time 6-20 s ahead. */
  private async move() {
    const candidates = this.tasks.filter((t) => !t.frozen && t.firesAt > Date.now() + 5_000);
    const task = candidates[Math.floor(Math.random() * candidates.length)];
    if (!task) return this.create();
    const seconds = 6 + Math.floor(Math.random() * 14);
    const slot = slotFiringIn(seconds);
    const moved = await this.world.call('PATCH', `/api/v1/service/tasks/${task.id}`, slot);
    this.record('move', moved);
    task.slots.push({ start: Date.parse(slot.chosen_slot_start), answeredAt: Date.now() });
    if (moved.status === 200) task.firesAt = Date.now() + seconds * 1000;
    else task.frozen = true;
  }

  /** A fault from `from` to `to`: a slot moved meanwhile may still fire where it was (see `reconcile`). */
  markFault(from: number, to: number) {
    this.faults.push({ from, to });
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
   * back from the API, whatever the client saw) against what the receiver got. A reminder is a task's slot: the
   * final slot of each task arrives, and no slot arrives twice (nor any event id). A slot the client moved away
   * from may still have fired: when it came due before the move's answer, or when a fault held the move's event
   * back (the outbox publishes it after the fault, and only then does the delivery service learn of the move).
   * Such firings are counted; any other firing of an old slot is a reminder for a time the user had left.
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
    const mine = new Map(this.tasks.map((t) => [t.id, t.slots]));
    const owed = tasks.filter((t) => mine.has(t.id) && t.chosen_slot_start !== null);
    const finalSlot = new Map(owed.map((t) => [t.id, Date.parse(String(t.chosen_slot_start))]));
    const lastFire = Math.max(...[...finalSlot.values()].map((start) => start - REMINDER_OFFSET_MIN * 60_000));
    const until = Math.max(Date.now(), lastFire) + maxWaitMs;
    const reminder = (taskId: string, slot: number | undefined) => `${taskId} at ${slot}`;
    const firings = () =>
      this.world.receiver.received.map((w) => {
        const task = (w.json as { task?: { id?: string; chosen_slot_start?: string } }).task;
        return { taskId: String(task?.id), slot: Date.parse(String(task?.chosen_slot_start)), at: w.receivedAtMs };
      });
    const missing = () => {
      const arrived = new Set(firings().map((f) => reminder(f.taskId, f.slot)));
      return owed.filter((t) => !arrived.has(reminder(t.id, finalSlot.get(t.id)))).map((t) => t.id);
    };
    while (Date.now() < until && missing().length > 0) await new Promise((resolve) => setTimeout(resolve, 500));
    // Late duplicates would arrive within a worker pass or two.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const all = firings();
    const keys = all.map((f) => reminder(f.taskId, f.slot));
    // When the client moved a task away from a slot: the answer to the next slot it asked for (none for a slot it
    // never asked for).
    const movedAwayAt = (f: (typeof all)[number]) => {
      const slots = mine.get(f.taskId) ?? [];
      const asked = slots.findIndex((s) => s.start === f.slot);
      return asked < 0 ? undefined : slots[asked + 1]?.answeredAt;
    };
    // An event written up to a second before the fault may still have been in the outbox when it began.
    const heldBack = (at: number) => this.faults.some((fault) => at >= fault.from - 1_000 && at <= fault.to);
    const old = all.filter((f) => mine.has(f.taskId) && finalSlot.get(f.taskId) !== f.slot);
    const unexplained = old.filter((f) => {
      const movedAt = movedAwayAt(f);
      return movedAt === undefined || (f.at > movedAt && !heldBack(movedAt));
    });
    const eventIds = this.world.receiver.received.map((w) => String(w.headers['x-service-event-id']));
    return {
      owed: owed.length,
      lost: missing(),
      duplicatedReminders: [...new Set(keys.filter((key, i) => keys.indexOf(key) !== i))],
      duplicatedEvents: eventIds.length - new Set(eventIds).size,
      oldSlotsFired: old.length,
      oldSlotsUnexplained: unexplained.map((f) => ({ ...f, movedAt: movedAwayAt(f) })),
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
 * run still prints it), and every reminder the product owes arrived exactly once (by task and slot, and by event
 * id), no slot fired after the user left it unless a fault explains it, and each was signed as the receiver
 * expects unless `signatures` is false.
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
  expect(outcome.duplicatedReminders).toEqual([]);
  expect(outcome.oldSlotsUnexplained).toEqual([]);
  if (options.signatures !== false) expect(outcome.unverified).toBe(0);
}
