import { isDeepStrictEqual } from 'node:util';
import { column, type Orm, row, Sql } from '@routinely/db';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { enqueue } from '../src/index.js';
import { openEventsDatabase, taskCreated } from './support.js';

let orm: Orm;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ orm, close } = await openEventsDatabase());
});
afterAll(() => close?.());

const outboxRow = row({
  subject: column.text,
  payload: column.json(z.unknown()),
  created_at: column.timestamp,
  published_at: column.timestamp.nullable(),
  claimed_until: column.timestamp.nullable(),
});
const rowOf = (id: string) =>
  Sql.of(orm).first(
    outboxRow,
    `select subject, payload, created_at, published_at, claimed_until from outbox where id = ?`,
    [id],
  );

it('enqueue inserts the same outbox rows one event at a time and several in one statement, committing or rolling back with its transaction', async () => {
  const alone = taskCreated({ title: 'alone in its transaction' });
  const firstOfBatch = taskCreated({ title: 'first of a batch' });
  const second = taskCreated({ title: 'second of the batch' });
  const db = Sql.of(orm);
  await db.transaction((sql) => enqueue(sql, alone));
  await db.transaction((sql) => enqueue(sql, firstOfBatch, second));

  // Every column says the same of its event, whichever transaction wrote it.
  const described = async (event: typeof alone) => {
    const row = await rowOf(event.id);
    return {
      subject: row?.subject === event.type,
      // jsonb keeps its own key order: compared as values.
      payload: isDeepStrictEqual(row?.payload, JSON.parse(JSON.stringify(event))),
      created_at: row?.created_at.toISOString() === event.occurred_at,
      published_at: row?.published_at,
      claimed_until: row?.claimed_until,
    };
  };
  const reference = await described(alone);
  expect(reference).toEqual({
    subject: true,
    payload: true,
    created_at: true,
    published_at: null,
    claimed_until: null,
  });
  expect(await described(firstOfBatch)).toEqual(reference);
  expect(await described(second)).toEqual(reference);

  const rolledBack = taskCreated({ title: 'rolled back' });
  await expect(
    db.transaction(async (sql) => {
      await enqueue(sql, rolledBack);
      throw new Error('abort');
    }),
  ).rejects.toThrow('abort');
  expect(await rowOf(rolledBack.id)).toBeUndefined();
  await db.transaction((sql) => enqueue(sql));
});
