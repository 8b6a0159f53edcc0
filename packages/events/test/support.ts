import { column, type Orm, openOrm, row, Sql } from '@routinely/db';
import { createTestDatabase } from '@routinely/testkit';
import { type Logger, pino } from 'pino';
import { type EventEnvelope, enqueue, makeEvent, type TaskSnapshot, taskEvents } from '../src/index.js';
import { eventsTestMigrations } from './fixtures/migration.js';

/** A fresh database with the events tables in schema `evt`. */
export async function openEventsDatabase(): Promise<{ orm: Orm; close: () => Promise<void> }> {
  const db = await createTestDatabase();
  const orm = await openOrm(db.url, {
    schema: 'evt',
    entities: (await import('../src/index.js')).eventEntities,
    migrations: eventsTestMigrations,
  });
  return {
    orm,
    close: async () => {
      await orm.close();
      await db.drop();
    },
  };
}

/** Commits `events` to the outbox in one transaction, as a service's write does. */
export async function commitEvents(orm: Orm, events: EventEnvelope[]): Promise<void> {
  await Sql.of(orm).transaction((sql) => enqueue(sql, ...events));
}

export function taskSnapshot(overrides: Partial<TaskSnapshot> = {}): TaskSnapshot {
  return {
    id: crypto.randomUUID(),
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
    version: 1,
    ...overrides,
  };
}

export function taskCreated(overrides: Partial<TaskSnapshot> = {}): EventEnvelope<{ task: TaskSnapshot }> {
  return makeEvent(
    taskEvents.taskCreated,
    { tenantId: 't1', userId: 'u1', at: new Date() },
    { task: taskSnapshot(overrides) },
  );
}

/** A logger whose JSON lines the test can read. */
export function capturingLogger(): { logger: Logger; lines: () => Record<string, unknown>[] } {
  const raw: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void raw.push(line) });
  return { logger, lines: () => raw.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

export async function count(orm: Orm, sql: string, params: unknown[] = []): Promise<number> {
  const counted = await Sql.of(orm).first(row({ n: column.integer }), `select count(*)::int as n from ${sql}`, params);
  return counted?.n ?? 0;
}

/** A transport delivery of `payload` (its `attempt`-th), as a burst handler receives it. */
export const delivery = (payload: EventEnvelope, attempt = 1) => ({ subject: payload.type, attempt, payload });

/**
 * A row a handler writes in the consumer's transaction (an `event_dead_letter` row marked `consumer`): it commits
 * with the inbox rows, or not at all, so tests count these to see what a transaction left behind.
 */
export async function writeRow(sql: Sql, eventId: string, consumer: string): Promise<void> {
  await sql.run(
    "insert into event_dead_letter (id, consumer, event_id, subject, payload, error, attempts, created_at) values (gen_random_uuid(), ?, ?, 'x', 'null', 'x', 1, now())",
    [consumer, eventId],
  );
}
