import { type Orm, openOrm } from '@routinely/db';
import { createTestDatabase, quietLogger, requireEnv, uniqueName } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  consumeEvents,
  type EventEnvelope,
  enqueue,
  eventEntities,
  JetStreamTransport,
  makeEvent,
  OutboxRelay,
  taskEvents,
} from '../src/index.js';
import { InitialEventsMigration } from './fixtures/migration.js';

const logger = quietLogger();
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let orm: Orm;

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await openOrm(db.url, {
    schema: 'evt',
    entities: eventEntities,
    migrations: [{ name: 'Initial', class: InitialEventsMigration }],
  });
});
afterAll(async () => {
  await orm?.close();
  await db?.drop();
});

function sampleEvent(): EventEnvelope {
  const id = crypto.randomUUID();
  return makeEvent(
    taskEvents.created,
    { tenantId: 't1', userId: 'u1', at: new Date() },
    {
      task: {
        id,
        tenant_id: 't1',
        user_id: 'u1',
        parent_task_id: null,
        title: 'x',
        description: null,
        status: 'pending',
        priority: 3,
        duration_min: 30,
        tags: [],
        deadline_at: null,
        chosen_slot_start: null,
        chosen_slot_end: null,
        reminder_channels: ['inapp'],
        reminder_offset_min: 10,
        updated_at: new Date().toISOString(),
      },
    },
  );
}

async function commitEvent(event: EventEnvelope) {
  await orm.em.fork().transactional(async (em) => enqueue(em, event));
}

describe('outbox relay over JetStream', () => {
  it('publishes exactly once after the relay dies between commit and publish, and once after dying between publish and mark', async () => {
    const transport = await JetStreamTransport.connect(requireEnv('NATS_URL'), logger, uniqueName('outbox'));
    try {
      const handled: string[] = [];
      const sub = await consumeEvents({
        orm,
        transport,
        durable: 'test-consumer',
        subject: 'task.task.created',
        handle: async (_em, envelope) => {
          handled.push(envelope.id);
        },
      });
      // Crash between commit and publish: the first relay claims the row and dies before publishing.
      const first = sampleEvent();
      await commitEvent(first);
      const crashing = new OutboxRelay({
        orm,
        transport,
        logger,
        beforePublish: async () => {
          throw new Error('killed');
        },
      });
      await expect(crashing.publishBatch()).rejects.toThrow('killed');
      expect(await transport.storedCount('task.task.created')).toBe(0);
      // Crash between publish and mark: the event reaches the stream, the relay dies before marking it.
      const second = sampleEvent();
      await commitEvent(second);
      const half = new OutboxRelay({
        orm,
        transport: {
          ...transport,
          publish: async (e: EventEnvelope) => {
            await transport.publish(e);
            if (e.id === second.id) throw new Error('killed after publish');
          },
          subscribe: transport.subscribe.bind(transport),
          close: async () => {},
        },
        logger,
      });
      await expect(half.publishBatch()).rejects.toThrow('killed after publish');
      // A fresh relay finishes the job.
      const relay = new OutboxRelay({ orm, transport, logger });
      expect(await relay.publishBatch()).toBe(2);
      expect(await relay.publishBatch()).toBe(0);
      expect(await transport.storedCount('task.task.created')).toBe(2);
      await expect.poll(() => handled.length, { timeout: 10_000 }).toBe(2);
      expect(new Set(handled)).toEqual(new Set([first.id, second.id]));
      const rows = await orm.em.fork().getConnection().execute('select count(*)::int as n from inbox');
      expect(rows[0]?.n).toBe(2);
      await sub.stop();
    } finally {
      await transport.deleteStreams();
      await transport.close();
    }
  });
});
