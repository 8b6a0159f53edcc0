import { isDeepStrictEqual } from 'node:util';
import { column, type Orm, row, Sql } from '@routinely/db';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { claimOutbox, unpublishedOutbox } from '../src/db/outbox-sql.js';
import { type EventEnvelope, enqueue, makeEvent, taskEvents } from '../src/index.js';
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
  events: column.integer,
});
const rowOf = (id: string) =>
  Sql.of(orm).first(
    outboxRow,
    `select subject, payload, created_at, published_at, claimed_until, events from outbox where id = ?`,
    [id],
  );

const claimedIds = (rows: { events: { id: string }[] }[]) => rows.map((r) => r.events.map((e) => e.id));

it('enqueue writes one row per event, or per run of one type, in one statement, committing or rolling back with its transaction', async () => {
  const alone = taskCreated({ title: 'alone in its transaction' });
  const [first, second] = [taskCreated({ title: 'first of a run' }), taskCreated({ title: 'second of the run' })];
  const other = makeEvent(taskEvents.taskUpdated, { tenantId: 't1', userId: 'u1', at: new Date() }, second.data);
  const after = taskCreated({ title: 'after another type' });
  const db = Sql.of(orm);
  await db.transaction((sql) => enqueue(sql, alone));
  await db.transaction((sql) => enqueue(sql, first, second, other, after));

  // A row says the same of its events whichever transaction wrote it: the first one's id, type and time.
  const described = async (events: readonly EventEnvelope[]) => {
    const [head] = events as [EventEnvelope];
    const row = await rowOf(head.id);
    const payload = events.length === 1 ? head : events;
    return {
      subject: row?.subject === head.type,
      // jsonb keeps its own key order: compared as values.
      payload: isDeepStrictEqual(row?.payload, JSON.parse(JSON.stringify(payload))),
      created_at: row?.created_at.toISOString() === head.occurred_at,
      events: row?.events,
      published_at: row?.published_at,
      claimed_until: row?.claimed_until,
    };
  };
  const reference = await described([alone]);
  expect(reference).toEqual({
    subject: true,
    payload: true,
    created_at: true,
    events: 1,
    published_at: null,
    claimed_until: null,
  });
  expect(await described([first, second])).toEqual({ ...reference, events: 2 });
  expect(await described([other])).toEqual(reference);
  expect(await described([after])).toEqual(reference);
  expect(await rowOf(second.id)).toBeUndefined();
  // The relay gets every event back, in the order written.
  expect(claimedIds(await claimOutbox(db, 60_000, 200))).toEqual([
    [alone.id],
    [first.id, second.id],
    [other.id],
    [after.id],
  ]);
  expect(await unpublishedOutbox(db)).toMatchObject({ pending: 5 });

  const rolledBack = taskCreated({ title: 'rolled back' });
  await expect(
    db.transaction(async (sql) => {
      await enqueue(sql, rolledBack);
      throw new Error('abort');
    }),
  ).rejects.toThrow('abort');
  expect(await rowOf(rolledBack.id)).toBeUndefined();
  await db.transaction((sql) => enqueue(sql));
  await db.run('update outbox set published_at = now()');
});

it('cuts a long run into rows of at most 100 events', async () => {
  const db = Sql.of(orm);
  const events = Array.from({ length: 250 }, () => taskCreated());
  await db.transaction((sql) => enqueue(sql, ...events));
  const claimed = await claimOutbox(db, 60_000, 200);
  expect(claimed.map((row) => row.events.length)).toEqual([100, 100, 50]);
  expect(claimed.flatMap((row) => row.events.map((e) => e.id))).toEqual(events.map((e) => e.id));
  await db.run('update outbox set published_at = now()');
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

  const claimed = (await claimOutbox(db, 60_000, 200)).map((row) => row.id);
  const expected = await db.rows(
    row({ id: column.uuid }),
    'select id from outbox where published_at is null and claimed_until is not null order by id',
  );
  expect(claimed).toEqual(expected.map((r) => r.id));
  expect(claimed).toHaveLength(200);
});
