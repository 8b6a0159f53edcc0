import { isDeepStrictEqual } from 'node:util';
import { type Orm, Sql } from '@routinely/db';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { enqueue } from '../src/index.js';
import { openEventsDatabase, taskCreated } from './support.js';

let orm: Orm;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ orm, close } = await openEventsDatabase());
});
afterAll(() => close?.());

const rowOf = (id: string) =>
  Sql.pool(orm).first<Record<string, unknown>>(
    `select subject, payload, created_at, published_at, claimed_until from outbox where id = ?`,
    [id],
  );

it('enqueue inserts the same outbox rows in an EntityManager transaction and a raw one, committing or rolling back with it', async () => {
  const viaOrm = taskCreated({ title: 'in the transaction of an EntityManager' });
  const viaSql = taskCreated({ title: 'through raw SQL' });
  const second = taskCreated({ title: 'second of the batch' });
  await Sql.transaction(orm, (sql) => enqueue(sql, viaOrm));
  await Sql.rawTransaction(orm, (sql) => enqueue(sql, viaSql, second));

  // Every column says the same of its event, whichever transaction wrote it.
  const described = async (event: typeof viaOrm) => {
    const row = await rowOf(event.id);
    return {
      subject: row?.subject === event.type,
      // jsonb keeps its own key order: compared as values.
      payload: isDeepStrictEqual(row?.payload, JSON.parse(JSON.stringify(event))),
      created_at: new Date(String(row?.created_at)).toISOString() === event.occurred_at,
      published_at: row?.published_at,
      claimed_until: row?.claimed_until,
    };
  };
  const reference = await described(viaOrm);
  expect(reference).toEqual({
    subject: true,
    payload: true,
    created_at: true,
    published_at: null,
    claimed_until: null,
  });
  expect(await described(viaSql)).toEqual(reference);
  expect(await described(second)).toEqual(reference);

  const rolledBack = taskCreated({ title: 'rolled back' });
  await expect(
    Sql.rawTransaction(orm, async (sql) => {
      await enqueue(sql, rolledBack);
      throw new Error('abort');
    }),
  ).rejects.toThrow('abort');
  expect(await rowOf(rolledBack.id)).toBeUndefined();
  await Sql.rawTransaction(orm, (sql) => enqueue(sql));
});
