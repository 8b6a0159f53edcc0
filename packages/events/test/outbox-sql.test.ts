import { isDeepStrictEqual } from 'node:util';
import { column, type Orm, row, Sql } from '@routinely/db';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { claimOutbox } from '../src/db/outbox-sql.js';
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

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];
const planRow = row({ 'QUERY PLAN': column.json(z.array(z.object({ Plan: z.custom<PlanNode>() }))) });

// Runs last: it fills the outbox of this file's database.
it('claims in id order from one index walk with 10,000 events waiting behind 50,000 published', async () => {
  const db = Sql.of(orm);
  await db.run(
    `insert into outbox (id, subject, payload, created_at, published_at)
     select id, 'task.task.created', jsonb_build_object('id', id), now(), case when n < 50000 then now() end
     from (select gen_random_uuid() as id, n from generate_series(0, 59999) as n) as events`,
  );
  await db.run('analyze outbox');
  let sent: { query: string; params: readonly unknown[] } | undefined;
  const recorder = {
    rows: async (_schema: unknown, query: string, params: readonly unknown[]) => {
      sent = { query, params };
      return [];
    },
  };
  await claimOutbox(recorder as unknown as Sql, 60_000, 200);
  if (!sent) throw new Error('claimOutbox sent no SQL');
  const [plan] = await db.rows(planRow, `explain (format json) ${sent.query}`, sent.params);
  const nodes = nodesOf(plan?.['QUERY PLAN'][0]?.Plan ?? { 'Node Type': 'none' });
  // The unpublished rows come in the index's order: none is read beyond the 200 claimed, none sorted.
  expect(nodes.map((n) => n['Node Type'])).not.toContain('Sort');
  expect(nodes.map((n) => n['Index Name'])).toContain('outbox_published_at_id_idx');

  const claimed = (await claimOutbox(db, 60_000, 200)).map((event) => event.id);
  const expected = await db.rows(
    row({ id: column.uuid }),
    'select id from outbox where published_at is null and claimed_until is not null order by id',
  );
  expect(claimed).toEqual(expected.map((r) => r.id));
  expect(claimed).toHaveLength(200);
});
