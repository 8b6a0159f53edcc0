import { randomUUID } from 'node:crypto';
import { onStatement, Sql } from '@routinely/db';
import type { TestUser } from '@routinely/testkit';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertRootTasksWithEvents } from '../src/db/task-create-sql.js';
import { taskEvent } from '../src/domain/events.js';
import { TaskCreates } from '../src/domain/task-create.js';
import { taskCreateSchema, toNewTask } from '../src/domain/task-input.js';
import { newTaskRow } from '../src/domain/task-model.js';
import { call, createTask, type Harness, startHarness } from './harness.js';

// A root create is one statement writing the task and its outbox row; these tests pin that the two
// rows commit together or not at all, and that the answer and the event built from the input are exactly
// what was stored.
let h: Harness;
let user: TestUser;

beforeAll(async () => {
  h = await startHarness();
  user = h.tokens.user();
});
afterAll(() => h?.close());

const rows = async <T>(query: string, params: unknown[] = []) =>
  ((await h.orm.em.getKnex().raw(query, params as never)) as unknown as { rows: T[] }).rows;

const owner = () => ({ tenantId: user.tenantId, userId: user.userId });
// A valid create as the route builds it; `title` unchecked, so a test can pass one the column refuses.
const input = (title: string) => ({ ...toNewTask(taskCreateSchema.parse({ title: 'x' })), title });

describe('a create is one statement for the task and its event', () => {
  it('answers, stores and announces the same task, in one statement for a root', async () => {
    // The import worker polls in transactions of its own, and the relay claims outbox rows: only other
    // statements on tasks or inserting into the outbox would be the create's. The routine fill worker's claim
    // names tasks too (it locks each claimed series' row), so statements on its fill rows are not.
    const onPool: string[] = [];
    const onReadPool: string[] = [];
    const stop = onStatement(h.orm, (q) => {
      if (q.on === 'read-pool') onReadPool.push(q.name ?? q.sql);
      else if (/\btasks\b|insert into outbox/.test(q.sql) && !/\btask_series_fills\b/.test(q.sql)) onPool.push(q.sql);
    });
    const created = await createTask(h, user, {
      title: '  Plan the week ',
      description: 'with ünïcode and "quotes"',
      deadline_at: '2026-12-01T10:00:00.123456+02:00',
      earliest_start_at: '2026-11-30T23:59:59Z',
      reminder_channels: ['email', 'webhook', 'email'],
      tags: ['work', 'plan'],
      priority: 1,
    });
    stop();
    // One named statement on the plain pg pool, outside any transaction (it commits by itself).
    expect(onReadPool).toEqual(['task_create_roots']);
    expect(onPool).toEqual([]);

    // The answer is the row as a read finds it.
    const read = await call(h, user, 'GET', `/service/tasks/${created.id}`);
    expect(read.json()).toEqual(created);
    expect(created).toMatchObject({ title: 'Plan the week', deadline_at: '2026-12-01T08:00:00.123Z' });
    // The event is the one a read of the stored row would have produced (the snapshot of the stored task).
    const [stored] = await rows<{ payload: { id: string; type: string; data: { task: unknown } }; created_at: Date }>(
      "select payload, created_at from outbox where payload->'data'->'task'->>'id' = ?",
      [created.id],
    );
    expect(stored?.payload.type).toBe('task.task.created');
    const [{ version } = { version: 0 }] = await rows<{ version: number }>('select version from tasks where id = ?', [
      created.id,
    ]);
    expect(version).toBe(1);
    expect(stored?.payload.data.task).toEqual({
      id: created.id,
      tenant_id: user.tenantId,
      user_id: user.userId,
      parent_task_id: null,
      title: 'Plan the week',
      description: 'with ünïcode and "quotes"',
      status: 'pending',
      priority: 1,
      duration_min: 30,
      tags: ['work', 'plan'],
      deadline_at: '2026-12-01T08:00:00.123Z',
      chosen_slot_start: null,
      chosen_slot_end: null,
      reminder_channels: ['email', 'webhook'],
      reminder_offset_min: 10,
      updated_at: created.updated_at,
      version: 1,
    });
  });

  it('writes neither row when the outbox row fails, nor when the task row fails, nor any row of such a batch', async () => {
    const now = new Date();
    const pool = Sql.of(h.orm);
    const make = (title: string) => {
      const row = newTaskRow(owner(), input(title), { id: uuidv7(), depth: 1 }, now);
      return { row, event: taskEvent('taskCreated', row, now) };
    };
    const first = make('first');
    await insertRootTasksWithEvents(pool, [first]);

    // Same event id again: the outbox insert fails, so the new task must not stay either.
    const second = { ...make('second'), event: first.event };
    await expect(insertRootTasksWithEvents(pool, [second])).rejects.toThrow(/outbox_pkey|duplicate key/);
    expect(await rows('select id from tasks where id = ?', [second.row.id])).toEqual([]);

    // Same task id again: the task insert fails, so its new event must not stay either.
    const again = { row: first.row, event: taskEvent('taskCreated', first.row, now) };
    await expect(insertRootTasksWithEvents(pool, [again])).rejects.toThrow(/tasks_pkey|duplicate key/);
    expect(await rows('select id from outbox where id = ?', [again.event.id])).toEqual([]);
    expect(await rows('select id from outbox where id = ?', [first.event.id])).toHaveLength(1);

    // One bad create among good ones: none of the statement's rows stays.
    const good = [make('good 1'), make('good 2')];
    await expect(insertRootTasksWithEvents(pool, [good[0], again, good[1]] as never)).rejects.toThrow(/duplicate key/);
    const ids = good.flatMap(({ row, event }) => [row.id, event.id]);
    expect(
      await rows(
        'select id from tasks where id = any(?::uuid[]) union all select id from outbox where id = any(?::uuid[])',
        [ids, ids],
      ),
    ).toEqual([]);
  });

  it("places the roots of one statement after the owner's last root, in order, and takes one owner only", async () => {
    const now = new Date();
    const make = (who: TestUser, title: string) => {
      const row = newTaskRow(
        { tenantId: who.tenantId, userId: who.userId },
        input(title),
        { id: uuidv7(), depth: 1 },
        now,
      );
      return { row, event: taskEvent('taskCreated', row, now) };
    };
    const last = await createTask(h, user, { title: 'last root so far' });
    const positions = await insertRootTasksWithEvents(Sql.of(h.orm), [
      make(user, 'a'),
      make(user, 'b'),
      make(user, 'c'),
    ]);
    expect(positions).toEqual([1, 2, 3].map((n) => last.sort_order + n));
    const other = h.tokens.user();
    expect(await insertRootTasksWithEvents(Sql.of(h.orm), [make(other, 'x'), make(other, 'y')])).toEqual([0, 1]);
    await expect(insertRootTasksWithEvents(Sql.of(h.orm), [make(user, 'd'), make(other, 'z')])).rejects.toThrow(
      'one owner',
    );
  });

  it('answers concurrent root creates each after its own commit, and fails only a bad one', async () => {
    const who = h.tokens.user();
    const created = await Promise.all(
      Array.from({ length: 40 }, (_, i) => createTask(h, who, { title: `burst ${i}`, tags: [`n${i}`] })),
    );
    for (const task of created) {
      const read = await call(h, who, 'GET', `/service/tasks/${task.id}`);
      expect(read.json()).toEqual(task);
    }
    // One statement per owner at a time: creates submitted in one tick (the first goes alone, the rest queue
    // behind it as one batch) each get their own position, in a row.
    const burst = new TaskCreates(Sql.of(h.orm), h.clock, { kick: () => {} });
    const fresh = { tenantId: randomUUID(), userId: randomUUID() };
    const positions = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => (await burst.create(fresh, input(`row ${i}`))).sort_order),
    );
    expect(positions.sort((a, b) => a - b)).toEqual(positions.map((_, i) => i));
    const events = await rows<{ id: string }>(
      "select payload->'data'->'task'->>'id' as id from outbox where payload->>'user_id' = ?",
      [who.userId],
    );
    expect(events.map((e) => e.id).sort()).toEqual(created.map((t) => t.id).sort());
    // A title too long for the column (as if validation let it through) queued behind four running creates:
    // its statement fails as a whole, then each of its creates is written alone and only it fails.
    const creates = new TaskCreates(Sql.of(h.orm), h.clock, { kick: () => {} });
    const ownerOf = { tenantId: who.tenantId, userId: who.userId };
    const titles = [...Array.from({ length: 9 }, (_, i) => `after ${i}`), 'x'.repeat(501)];
    const results = await Promise.allSettled(titles.map((title) => creates.create(ownerOf, input(title))));
    expect(results.map((r) => r.status)).toEqual([...Array(9).fill('fulfilled'), 'rejected']);
    const stored = await rows<{ title: string }>('select title from tasks where user_id = ? and title like ?', [
      who.userId,
      'after %',
    ]);
    expect(stored).toHaveLength(9);
  });

  it('gives a child its place after its siblings inside the same statement, under the tree lock', async () => {
    const parent = await createTask(h, user, { title: 'parent' });
    const children = await Promise.all(
      Array.from({ length: 5 }, (_, i) => createTask(h, user, { title: `child ${i}`, parent_task_id: parent.id })),
    );
    expect(children.map((c) => c.sort_order).sort()).toEqual([0, 1, 2, 3, 4]);
    const events = await rows<{ task: Record<string, unknown> }>(
      "select payload->'data'->'task' as task from outbox where payload->'data'->'task'->>'parent_task_id' = ?",
      [parent.id],
    );
    expect(events.map((e) => e.task.id).sort()).toEqual(children.map((c) => c.id).sort());
    const first = children.find((c) => c.title === 'child 0');
    expect(events.find((e) => e.task.id === first.id)?.task).toMatchObject({
      parent_task_id: parent.id,
      title: 'child 0',
      status: 'pending',
      updated_at: first.updated_at,
      version: 1,
    });
  });
});
