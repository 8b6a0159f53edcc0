import { onStatement } from '@routinely/db';
import type { TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createChain, createTask, type Harness, outboxEvents, startHarness } from './harness.js';

let h: Harness;
let user: TestUser;

beforeAll(async () => {
  h = await startHarness();
  user = h.tokens.user();
});
afterAll(() => h?.close());

const create = (body: Record<string, unknown>, who: TestUser = user) => createTask(h, who, body);
const chain = (n: number, who: TestUser = user) => createChain(h, who, n);

describe('create, get, list', () => {
  it('creates with the contract defaults on both mounts and reads it back', async () => {
    const task = await create({ title: 'Write report' });
    expect(task).toMatchObject({
      title: 'Write report',
      user_id: user.userId,
      tenant_id: user.tenantId,
      parent_task_id: null,
      depth: 1,
      status: 'pending',
      priority: 3,
      duration_min: 30,
      reminder_channels: ['inapp'],
      reminder_offset_min: 10,
      tags: [],
      chosen_slot_start: null,
    });
    expect(task.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    expect(task.created_at).toMatch(/Z$/);
    const alias = await h.app.inject({ url: `/v1/service/tasks/${task.id}`, headers: await h.tokens.auth(user) });
    expect(alias.statusCode).toBe(200);
    expect(alias.json()).toEqual(task);
  });

  it('stores deadline as UTC and places children after their siblings', async () => {
    const parent = await create({ title: 'parent', deadline_at: '2026-12-01T10:00:00+02:00', tags: ['home'] });
    expect(parent.deadline_at).toBe('2026-12-01T08:00:00.000Z');
    const a = await create({ title: 'a', parent_task_id: parent.id });
    const b = await create({ title: 'b', parent_task_id: parent.id });
    expect([a.depth, a.sort_order, b.sort_order]).toEqual([2, 0, 1]);
    // Roots go after the last root, whatever the children of another parent hold.
    const r1 = await create({ title: 'root 1' });
    const r2 = await create({ title: 'root 2' });
    expect(r1.sort_order).toBeGreaterThan(parent.sort_order);
    expect(r2.sort_order).toBe(r1.sort_order + 1);
  });

  it('answers 404 for a missing parent and 409 depth_exceeded for a sixth level', async () => {
    const missing = await call(h, user, 'POST', '/service/tasks', {
      title: 'x',
      parent_task_id: '01900000-0000-7000-8000-0000000000ff',
    });
    expect(missing.statusCode).toBe(404);
    const levels = await chain(5);
    expect(levels[4].depth).toBe(5);
    const sixth = await call(h, user, 'POST', '/service/tasks', { title: 'too deep', parent_task_id: levels[4].id });
    expect(sixth.statusCode).toBe(409);
    expect(sixth.json().code).toBe('depth_exceeded');
  });

  it('filters by status, parent and tag, with limit and offset', async () => {
    const who = h.tokens.user();
    const root = await create({ title: 'root', tags: ['work'] }, who);
    await create({ title: 'child 1', parent_task_id: root.id, tags: ['work', 'deep'] }, who);
    await create({ title: 'child 2', parent_task_id: root.id }, who);
    const list = async (query: string) => {
      const res = await call(h, who, 'GET', `/service/tasks${query}`);
      expect(res.statusCode).toBe(200);
      return res.json().map((t: { title: string }) => t.title);
    };
    expect(await list('')).toEqual(['root', 'child 1', 'child 2']);
    expect(await list(`?parent_task_id=${root.id}`)).toEqual(['child 1', 'child 2']);
    expect(await list('?tag=work')).toEqual(['root', 'child 1']);
    expect(await list('?status=done')).toEqual([]);
    expect(await list('?limit=1&offset=1')).toEqual(['child 1']);
    expect((await call(h, who, 'GET', '/service/tasks?limit=501')).statusCode).toBe(422);
    expect((await call(h, who, 'GET', '/service/tasks?limit=0')).statusCode).toBe(422);
  });

  it("never shows another user's or tenant's tasks", async () => {
    const task = await create({ title: 'mine' });
    const sameTenant = h.tokens.user({ tenantId: user.tenantId });
    const otherTenant = h.tokens.user();
    for (const other of [sameTenant, otherTenant]) {
      expect((await call(h, other, 'GET', `/service/tasks/${task.id}`)).statusCode).toBe(404);
      expect((await call(h, other, 'GET', '/service/tasks')).json()).toEqual([]);
      expect((await call(h, other, 'POST', '/service/tasks', { title: 'x', parent_task_id: task.id })).statusCode).toBe(
        404,
      );
    }
  });

  it('answers concurrent reads of several owners from shared statements, each only its own task', async () => {
    const other = h.tokens.user();
    const mine = await create({ title: 'mine, read together' });
    const theirs = await create({ title: 'theirs, read together' }, other);
    const statements: string[] = [];
    const stop = onStatement(h.orm, (statement) => statements.push(statement.name ?? statement.sql));
    // Every owner asks for both ids at once: each gets its own task and a 404 for the other's.
    const reads = await Promise.all(
      Array.from({ length: 40 }, (_, i) => {
        const who = i % 2 === 0 ? user : other;
        return call(h, who, 'GET', `/service/tasks/${i % 4 < 2 ? mine.id : theirs.id}`);
      }),
    );
    stop();
    reads.forEach((read, i) => {
      const own = (i % 2 === 0) === i % 4 < 2;
      expect(read.statusCode, `read ${i}`).toBe(own ? 200 : 404);
      if (own) expect(read.json()).toEqual(i % 2 === 0 ? mine : theirs);
    });
    const batched = statements.filter((name) => name === 'tasks_by_keys');
    expect(batched.length).toBeGreaterThan(0);
    expect(batched.length).toBeLessThan(reads.length);
  });
});

describe('tree', () => {
  it('nests the subtree in sibling order and rolls durations up', async () => {
    const root = await create({ title: 'root', duration_min: 0 });
    const a = await create({ title: 'a', duration_min: 10, parent_task_id: root.id });
    await create({ title: 'b', duration_min: 20, parent_task_id: root.id });
    await create({ title: 'a1', duration_min: 5, parent_task_id: a.id });
    await create({ title: 'a2', duration_min: 7, parent_task_id: a.id });
    const res = await call(h, user, 'GET', `/service/tasks/${root.id}/tree`);
    expect(res.statusCode).toBe(200);
    const tree = res.json();
    expect(tree.rolled_up_duration_min).toBe(42);
    expect(tree.children.map((c: { title: string }) => c.title)).toEqual(['a', 'b']);
    expect(tree.children[0].rolled_up_duration_min).toBe(22);
    expect(tree.children[0].children.map((c: { title: string; depth: number }) => [c.title, c.depth])).toEqual([
      ['a1', 3],
      ['a2', 3],
    ]);
    expect(tree.children[1]).toMatchObject({ title: 'b', children: [], rolled_up_duration_min: 20 });
  });

  it('reads any tree size with the same number of queries', async () => {
    const who = h.tokens.user();
    const small = await create({ title: 'small' }, who);
    const big = await create({ title: 'big' }, who);
    let frontier = [big.id];
    for (let level = 2; level <= 4; level++) {
      const next: string[] = [];
      for (const parent of frontier)
        for (let i = 0; i < 4; i++)
          next.push((await create({ title: `n${level}.${i}`, parent_task_id: parent }, who)).id);
      frontier = next;
    }
    const queries: string[] = [];
    // Only statements on the task tables: the outbox relay polls concurrently and is not part of the read.
    const stop = onStatement(h.orm, (statement) => {
      if (/\btasks\b/.test(statement.sql)) queries.push(statement.sql);
    });
    const count = async (id: string) => {
      queries.length = 0;
      const res = await call(h, who, 'GET', `/service/tasks/${id}/tree`);
      expect(res.statusCode).toBe(200);
      return { n: queries.length, size: JSON.stringify(res.json()).match(/"id"/g)?.length };
    };
    const smallRead = await count(small.id);
    const bigRead = await count(big.id);
    stop();
    expect(smallRead.size).toBe(1);
    expect(bigRead.size).toBe(1 + 4 + 16 + 64);
    expect(smallRead.n).toBe(1);
    expect(bigRead.n).toBe(smallRead.n);
  });

  it('lists every task depth-first by sort_order through the routine-tasks alias', async () => {
    const who = h.tokens.user();
    const r1 = await create({ title: 'r1' }, who);
    const r2 = await create({ title: 'r2' }, who);
    const c1 = await create({ title: 'r1.c1', parent_task_id: r1.id }, who);
    await create({ title: 'r2.c1', parent_task_id: r2.id }, who);
    await create({ title: 'r1.c1.x', parent_task_id: c1.id }, who);
    await create({ title: 'r1.c2', parent_task_id: r1.id }, who);
    const res = await call(h, who, 'GET', '/service/routine-tasks/tree');
    expect(res.statusCode).toBe(200);
    expect(res.json().map((t: { title: string; depth: number }) => `${t.depth}:${t.title}`)).toEqual([
      '1:r1',
      '2:r1.c1',
      '3:r1.c1.x',
      '2:r1.c2',
      '1:r2',
      '2:r2.c1',
    ]);
    expect(res.headers['x-total-count']).toBe('6');
    // Bounded: pages of the same depth-first order.
    const page = await call(h, who, 'GET', '/service/routine-tasks/tree?limit=2&offset=2');
    expect(page.json().map((t: { title: string }) => t.title)).toEqual(['r1.c1.x', 'r1.c2']);
    expect(page.headers['x-total-count']).toBe('6');
    const tooMany = await call(h, who, 'GET', '/service/routine-tasks/tree?limit=5001');
    expect(tooMany.statusCode).toBe(422);
    expect(tooMany.json().errors[0].loc).toEqual(['query', 'limit']);
  });
});

describe('delete', () => {
  it('removes the subtree and its dependencies, with one deleted event per task', async () => {
    const who = h.tokens.user();
    const [root, child, grandchild] = await chain(3, who);
    const other = await create({ title: 'other' }, who);
    const dep = await call(h, who, 'POST', '/service/tasks/dependencies', {
      task_id: other.id,
      depends_on_id: grandchild.id,
    });
    expect(dep.statusCode).toBe(201);
    const res = await call(h, who, 'DELETE', `/service/tasks/${root.id}`);
    expect(res.statusCode).toBe(204);
    for (const t of [root, child, grandchild]) {
      expect((await call(h, who, 'GET', `/service/tasks/${t.id}`)).statusCode).toBe(404);
    }
    const deps = await call(h, who, 'GET', `/service/tasks/${other.id}/dependencies`);
    expect(deps.json().depends_on).toEqual([]);
    const deleted = (await outboxEvents(h)).filter((e) => e.type === 'task.task.deleted').map((e) => e.taskId);
    expect(deleted).toEqual(expect.arrayContaining([root.id, child.id, grandchild.id]));
    expect(deleted.filter((id) => [root.id, child.id, grandchild.id].includes(id))).toHaveLength(3);
    expect((await call(h, who, 'DELETE', `/service/tasks/${root.id}`)).statusCode).toBe(404);
  });
});
