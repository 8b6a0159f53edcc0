// The stored tree answers (domain/tree-answers.ts): every read must answer what the tree built from the rows
// at that moment is, byte for byte, whichever path wrote the rows and whichever instance stored the answer.
import { column, onStatement, row, Sql } from '@routinely/db';
import { createRpcClient, InternalAuth, type RpcClient, Server, startRpcServer, stopRpcServer } from '@routinely/grpc';
import { task_v1 } from '@routinely/proto';
import type { TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subtreeRows } from '../src/db/task-sql.js';
import { AnswerCache } from '../src/domain/answer-cache.js';
import { buildTree } from '../src/domain/tree.js';
import { TaskTreeAnswers } from '../src/domain/tree-answers.js';
import { call, createTask, type Harness, INTERNAL_SECRET, startHarness } from './harness.js';

let h: Harness;
let server: Server;
let scheduler: RpcClient<typeof task_v1.TaskServiceService>;

beforeAll(async () => {
  h = await startHarness();
  server = new Server();
  h.service.addGrpc?.(server);
  const address = await startRpcServer(server, '127.0.0.1', 0);
  scheduler = createRpcClient(task_v1.TaskServiceService, address, new InternalAuth(INTERNAL_SECRET, 'scheduler'));
});
afterAll(async () => {
  scheduler?.close();
  if (server) await stopRpcServer(server);
  await h?.close();
});

const ownerOf = (who: TestUser) => ({ tenantId: who.tenantId, userId: who.userId });

/** The answer as the route built it before answers were stored: the rows, nested, stringified. */
async function builtFromRows(who: TestUser, id: string): Promise<string> {
  return JSON.stringify(buildTree(await subtreeRows(Sql.of(h.orm), ownerOf(who), id)));
}

/** GET .../tree through the route, asserting 200 and the same bytes as the tree built from the rows now. */
async function readTree(who: TestUser, id: string): Promise<string> {
  const res = await call(h, who, 'GET', `/service/tasks/${id}/tree`);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(res.body).toBe(await builtFromRows(who, id));
  return res.body;
}

/** root -> a, b; a -> a1, a2; b -> b1 (root first). */
async function smallTree(who: TestUser) {
  const root = await createTask(h, who, { title: 'root', duration_min: 5 });
  const a = await createTask(h, who, { title: 'a', duration_min: 10, parent_task_id: root.id });
  const b = await createTask(h, who, { title: 'b', duration_min: 20, parent_task_id: root.id });
  const a1 = await createTask(h, who, { title: 'a1', duration_min: 1, parent_task_id: a.id });
  const a2 = await createTask(h, who, { title: 'a2', duration_min: 2, parent_task_id: a.id });
  const b1 = await createTask(h, who, { title: 'b1', duration_min: 3, parent_task_id: b.id });
  return { root, a, b, a1, a2, b1 };
}

describe('stored tree answers', () => {
  it('answers a repeated read from the stored bytes after reading only the owner’s version', async () => {
    const who = h.tokens.user();
    const { root } = await smallTree(who);
    const answers = new TaskTreeAnswers(Sql.of(h.orm), new AnswerCache(1 << 20));
    const first = await answers.read(ownerOf(who), root.id);
    const statements: string[] = [];
    // The read pool's statements: the service's workers run theirs on the other pool meanwhile.
    const stop = onStatement(h.orm, (q) => q.on === 'read-pool' && statements.push(q.name ?? q.sql));
    const second = await answers.read(ownerOf(who), root.id);
    stop();
    expect(second).toBe(first); // the very stored answer
    expect(statements).toEqual(['task_tree_versions']);
    expect(second.body.toString()).toBe(await builtFromRows(who, root.id));
  });

  it('answers 404 for a missing task and for another owner’s, even after the owner read it', async () => {
    const who = h.tokens.user();
    const other = h.tokens.user({ tenantId: who.tenantId });
    const { root } = await smallTree(who);
    await readTree(who, root.id);
    expect((await call(h, other, 'GET', `/service/tasks/${root.id}/tree`)).statusCode).toBe(404);
    await call(h, who, 'DELETE', `/service/tasks/${root.id}`);
    expect((await call(h, who, 'GET', `/service/tasks/${root.id}/tree`)).statusCode).toBe(404);
  });

  // Each write path: read (stores the answer), write, read again: the new bytes, for every tree that changed.
  const writes: [string, (who: TestUser, t: Awaited<ReturnType<typeof smallTree>>) => Promise<unknown>][] = [
    ['a child created', (who, t) => createTask(h, who, { title: 'a3', parent_task_id: t.a.id })],
    ['a grandchild patched', (who, t) => call(h, who, 'PATCH', `/service/tasks/${t.a1.id}`, { duration_min: 45 })],
    ['a grandchild deleted', (who, t) => call(h, who, 'DELETE', `/service/tasks/${t.a2.id}`)],
    ['siblings reordered', (who, t) => call(h, who, 'POST', `/service/tasks/${t.a2.id}/reorder`, { sort_order: 0 })],
    [
      'a grandchild scheduled by the scheduler (ApplySlots over gRPC)',
      (who, t) =>
        scheduler.applySlots(
          {
            withoutTasks: false,
            assignments: [
              { taskId: t.b1.id, chosenSlotStart: '2026-11-22T09:00:00Z', chosenSlotEnd: '2026-11-22T09:30:00Z' },
            ],
          },
          { actor: { ...ownerOf(who), permissions: who.permissions } },
        ),
    ],
    [
      'a grandchild imported under a child',
      (who, t) =>
        call(h, who, 'POST', '/service/tasks/bulk-import', { rows: [{ title: 'imported', parent_task_id: t.b.id }] }),
    ],
    [
      'a statement outside the service',
      (_who, t) => Sql.of(h.orm).run('update tasks set title = ? where id = ?', ['renamed by hand', t.b1.id]),
    ],
  ];
  for (const [what, write] of writes) {
    it(`answers the new tree after ${what}`, async () => {
      const who = h.tokens.user();
      const t = await smallTree(who);
      const before = await readTree(who, t.root.id);
      await readTree(who, t.a.id);
      await readTree(who, t.b.id);
      const result = await write(who, t);
      if (result && typeof result === 'object' && 'statusCode' in result) {
        expect((result as { statusCode: number }).statusCode).toBeLessThan(300);
      }
      // readTree compares each answer with the tree built from the rows now, stored or not.
      expect(await readTree(who, t.root.id)).not.toBe(before);
      await readTree(who, t.a.id);
      await readTree(who, t.b.id);
    });
  }

  it('answers the new trees after the calendar’s done, skip and unschedule', async () => {
    const who = h.tokens.user();
    const t = await smallTree(who);
    for (const task of [t.a1, t.a2, t.b1]) {
      const res = await call(h, who, 'PATCH', `/service/tasks/${task.id}`, {
        chosen_slot_start: '2026-11-24T09:00:00Z',
        chosen_slot_end: '2026-11-24T10:00:00Z',
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    let previous = await readTree(who, t.root.id);
    for (const [method, path] of [
      ['POST', `/service/calendar/events/${t.a1.id}/done`],
      ['POST', `/service/calendar/events/${t.a2.id}/skip`],
      ['DELETE', `/service/calendar/events/${t.b1.id}`],
    ] as const) {
      const res = await call(h, who, method, path);
      expect(res.statusCode, res.body).toBeLessThan(300);
      const next = await readTree(who, t.root.id);
      expect(next).not.toBe(previous);
      previous = next;
    }
  });

  it('answers both trees after a subtree moves between roots', async () => {
    const who = h.tokens.user();
    const from = await smallTree(who);
    const to = await smallTree(who);
    const fromBefore = await readTree(who, from.root.id);
    const toBefore = await readTree(who, to.root.id);
    const childBefore = await readTree(who, to.b.id);
    const res = await call(h, who, 'POST', `/service/tasks/${from.a.id}/move`, { parent_task_id: to.b.id });
    expect(res.statusCode, res.body).toBe(200);
    expect(await readTree(who, from.root.id)).not.toBe(fromBefore);
    expect(await readTree(who, to.root.id)).not.toBe(toBefore);
    expect(await readTree(who, to.b.id)).not.toBe(childBefore);
    // The moved subtree's own answer: deeper by one level, same tasks.
    const moved = JSON.parse(await readTree(who, from.a.id));
    expect(moved.depth).toBe(3);
    expect(moved.children.map((c: { title: string; depth: number }) => [c.title, c.depth])).toEqual([
      ['a1', 4],
      ['a2', 4],
    ]);
  });

  it('answers another instance’s write at once: nothing has to tell the instance that stored the answer', async () => {
    const who = h.tokens.user();
    const t = await smallTree(who);
    // A second instance's answers (its own cache) on the same database; writes go through the first.
    const elsewhere = new TaskTreeAnswers(Sql.of(h.orm), new AnswerCache(1 << 20));
    const before = (await elsewhere.read(ownerOf(who), t.root.id)).body.toString();
    expect((await call(h, who, 'PATCH', `/service/tasks/${t.b1.id}`, { title: 'changed here' })).statusCode).toBe(200);
    const after = (await elsewhere.read(ownerOf(who), t.root.id)).body.toString();
    expect(after).not.toBe(before);
    expect(after).toBe(await builtFromRows(who, t.root.id));
    expect(JSON.parse(after).children[1].children[0].title).toBe('changed here');
  });

  it('reads fresh with no room to store answers (TREE_ANSWER_CACHE_BYTES=0)', async () => {
    const who = h.tokens.user();
    const t = await smallTree(who);
    const uncached = new TaskTreeAnswers(Sql.of(h.orm), new AnswerCache(0));
    const first = await uncached.read(ownerOf(who), t.root.id);
    const second = await uncached.read(ownerOf(who), t.root.id);
    expect(second).not.toBe(first);
    expect(second.body.toString()).toBe(first.body.toString());
  });

  it('keeps creates of root tasks off the version row; a transaction of many rows bumps it once', async () => {
    const who = h.tokens.user();
    const version = async () =>
      (
        await Sql.of(h.orm).first(
          row({ version: column.bigint }),
          'select version from task_tree_versions where tenant_id = ? and user_id = ?',
          [who.tenantId, who.userId],
        )
      )?.version;
    await Promise.all(Array.from({ length: 20 }, (_, i) => createTask(h, who, { title: `root ${i}` })));
    expect(await version()).toBeUndefined();
    const t = await smallTree(who); // five child creates, one transaction each
    expect(Number(await version())).toBe(5);
    const slots = [t.a1, t.a2, t.b1].map((task, i) => ({
      taskId: task.id,
      chosenSlotStart: `2026-11-22T0${i}:00:00Z`,
      chosenSlotEnd: `2026-11-22T0${i}:30:00Z`,
    }));
    await scheduler.applySlots(
      { withoutTasks: false, assignments: slots },
      { actor: { ...ownerOf(who), permissions: who.permissions } },
    );
    expect(Number(await version())).toBe(6);
  });

  it('lets concurrent writes of one owner commit (no deadlock on the version row) and answers their result', async () => {
    const who = h.tokens.user();
    const t = await smallTree(who);
    const other = await smallTree(who);
    await readTree(who, t.root.id);
    const actor = { actor: { ...ownerOf(who), permissions: who.permissions } };
    const results = await Promise.all([
      ...[t.a1, t.a2, t.b1, other.a1, other.b1].map((task, i) =>
        call(h, who, 'PATCH', `/service/tasks/${task.id}`, { title: `concurrent ${i}`, duration_min: 10 + i }),
      ),
      ...[t.a, t.b, other.a].map((parent) => createTask(h, who, { title: 'new child', parent_task_id: parent.id })),
      scheduler.applySlots(
        {
          withoutTasks: false,
          assignments: [t.a1, other.a2, t.b1].map((task) => ({
            taskId: task.id,
            chosenSlotStart: '2026-11-23T09:00:00Z',
            chosenSlotEnd: '2026-11-23T09:30:00Z',
          })),
        },
        actor,
      ),
      call(h, who, 'POST', `/service/tasks/${other.b.id}/move`, { parent_task_id: t.root.id }),
    ]);
    for (const result of results) {
      if (result && typeof result === 'object' && 'statusCode' in result) {
        const r = result as { statusCode: number; body?: string };
        expect(r.statusCode, String(r.body)).toBeLessThan(300);
      }
    }
    await readTree(who, t.root.id);
    await readTree(who, other.root.id);
  });
});
