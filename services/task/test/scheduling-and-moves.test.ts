import { defined, type TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createChain, createTask, type Harness, outboxEvents, startHarness } from './harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const create = (who: TestUser, title: string, parent: string | null = null) =>
  createTask(h, who, { title, parent_task_id: parent });
const chain = (who: TestUser, n: number) => createChain(h, who, n);

const eventsOf = async (taskId: string) =>
  (await outboxEvents(h)).filter((e) => e.taskId === taskId).map((e) => e.type.replace('task.task.', ''));

describe('manual scheduling and status changes', () => {
  it('emits scheduled, scheduled again on a moved slot, unscheduled on clearing, with the task snapshot', async () => {
    const who = h.tokens.user();
    const task = await create(who, 'dentist');
    const patch = (body: unknown) => call(h, who, 'PATCH', `/service/tasks/${task.id}`, body);
    const scheduled = await patch({
      chosen_slot_start: '2026-11-22T09:00:00Z',
      chosen_slot_end: '2026-11-22T11:00:00+01:00',
    });
    expect(scheduled.statusCode, scheduled.body).toBe(200);
    expect(scheduled.json()).toMatchObject({
      status: 'scheduled',
      chosen_slot_start: '2026-11-22T09:00:00.000Z',
      chosen_slot_end: '2026-11-22T10:00:00.000Z',
    });
    const moved = await patch({ chosen_slot_start: '2026-11-23T09:00:00Z', chosen_slot_end: '2026-11-23T10:00:00Z' });
    expect(moved.json().status).toBe('scheduled');
    const title = await patch({ title: 'dentist (new)' });
    expect(title.json()).toMatchObject({ title: 'dentist (new)', status: 'scheduled' });
    const cleared = await patch({ chosen_slot_start: null, chosen_slot_end: null });
    expect(cleared.json()).toMatchObject({ status: 'pending', chosen_slot_start: null, chosen_slot_end: null });
    expect(await eventsOf(task.id)).toEqual(['created', 'scheduled', 'scheduled', 'updated', 'unscheduled']);
    const last = defined((await outboxEvents(h)).filter((e) => e.taskId === task.id).at(-1));
    expect(last.task).toMatchObject({
      title: 'dentist (new)',
      status: 'pending',
      user_id: who.userId,
      reminder_offset_min: 10,
    });
  });

  it('rejects a slot ending before it starts, half a slot, and scheduled without a slot', async () => {
    const who = h.tokens.user();
    const task = await create(who, 'x');
    const patch = (body: unknown) => call(h, who, 'PATCH', `/service/tasks/${task.id}`, body);
    const backwards = await patch({
      chosen_slot_start: '2026-11-22T10:00:00Z',
      chosen_slot_end: '2026-11-22T09:00:00Z',
    });
    expect(backwards.statusCode).toBe(422);
    expect(backwards.json().errors[0].loc).toEqual(['body', 'chosen_slot_end']);
    expect((await patch({ chosen_slot_start: '2026-11-22T10:00:00Z' })).statusCode).toBe(422);
    expect((await patch({ status: 'scheduled' })).json().errors[0].loc).toEqual(['body', 'status']);
    expect(
      (await patch({ chosen_slot_start: '2026-11-22T10:00:00', chosen_slot_end: '2026-11-22T11:00:00Z' })).statusCode,
    ).toBe(422);
    expect(await eventsOf(task.id)).toEqual(['created']);
  });

  it('refuses a manual slot longer than 31 days before any work (contract), and takes one of exactly 31', async () => {
    const who = h.tokens.user();
    const task = await create(who, 'long');
    const patch = (body: unknown) => call(h, who, 'PATCH', `/service/tasks/${task.id}`, body);
    const huge = await patch({ chosen_slot_start: '1000-01-01T00:00:00Z', chosen_slot_end: '9999-12-31T00:00:00Z' });
    expect(huge.statusCode).toBe(422);
    expect(huge.json().errors[0]).toMatchObject({
      loc: ['body', 'chosen_slot_end'],
      msg: 'a slot is at most 31 days long',
    });
    const month = await patch({ chosen_slot_start: '2026-12-01T00:00:00Z', chosen_slot_end: '2027-01-01T00:00:00Z' });
    expect(month.statusCode).toBe(200);
    expect(await eventsOf(task.id)).toEqual(['created', 'scheduled']);
  });

  it('marks done (completed, completed_at) and skipped, and pending clears the slot', async () => {
    const who = h.tokens.user();
    const a = await create(who, 'a');
    const b = await create(who, 'b');
    const c = await create(who, 'c');
    const slot = { chosen_slot_start: '2026-11-22T09:00:00Z', chosen_slot_end: '2026-11-22T09:30:00Z' };
    await call(h, who, 'PATCH', `/service/tasks/${a.id}`, slot);
    const done = (await call(h, who, 'PATCH', `/service/tasks/${a.id}`, { status: 'done' })).json();
    expect(done).toMatchObject({ status: 'done', completed_at: h.clock.now().toISOString() });
    const skipped = (await call(h, who, 'PATCH', `/service/tasks/${b.id}`, { status: 'skipped' })).json();
    expect(skipped).toMatchObject({ status: 'skipped', completed_at: null });
    await call(h, who, 'PATCH', `/service/tasks/${c.id}`, slot);
    const pending = (await call(h, who, 'PATCH', `/service/tasks/${c.id}`, { status: 'pending' })).json();
    expect(pending).toMatchObject({ status: 'pending', chosen_slot_start: null });
    expect(await eventsOf(a.id)).toEqual(['created', 'scheduled', 'completed']);
    expect(await eventsOf(b.id)).toEqual(['created', 'skipped']);
    expect(await eventsOf(c.id)).toEqual(['created', 'scheduled', 'unscheduled']);
  });
});

describe('move and reorder', () => {
  it('re-parents, makes roots, and keeps depths of the moved subtree', async () => {
    const who = h.tokens.user();
    const [a, a1] = await chain(who, 2);
    const b = await create(who, 'b');
    const moved = await call(h, who, 'POST', `/service/tasks/${a.id}/move`, { parent_task_id: b.id });
    expect(moved.json()).toMatchObject({ parent_task_id: b.id, depth: 2 });
    expect((await call(h, who, 'GET', `/service/tasks/${a1.id}`)).json().depth).toBe(3);
    const root = await call(h, who, 'PATCH', `/service/routine-tasks/${a.id}/parent`, { parent_task_id: null });
    expect(root.json()).toMatchObject({ parent_task_id: null, depth: 1 });
    expect((await call(h, who, 'GET', `/service/tasks/${a1.id}`)).json().depth).toBe(2);
  });

  it('answers 409 cycle_detected, 409 depth_exceeded counting the subtree, 404 for a missing parent', async () => {
    const who = h.tokens.user();
    const [a, , a2] = await chain(who, 3);
    const self = await call(h, who, 'POST', `/service/tasks/${a.id}/move`, { parent_task_id: a.id });
    expect(self.json().code).toBe('cycle_detected');
    const cycle = await call(h, who, 'POST', `/service/tasks/${a.id}/move`, { parent_task_id: a2.id });
    expect([cycle.statusCode, cycle.json().code]).toEqual([409, 'cycle_detected']);
    const [, , deepLeaf] = await chain(who, 3);
    const deep = await call(h, who, 'POST', `/service/tasks/${a.id}/move`, { parent_task_id: deepLeaf.id });
    expect([deep.statusCode, deep.json().code]).toEqual([409, 'depth_exceeded']);
    const missing = await call(h, who, 'POST', `/service/tasks/${a.id}/move`, {
      parent_task_id: '01900000-0000-7000-8000-0000000000ee',
    });
    expect(missing.statusCode).toBe(404);
    const foreign = await create(h.tokens.user({ tenantId: who.tenantId }), 'not yours');
    expect((await call(h, who, 'POST', `/service/tasks/${a.id}/move`, { parent_task_id: foreign.id })).statusCode).toBe(
      404,
    );
  });

  it('never builds a cycle or depth 6 when moves race', async () => {
    for (let round = 0; round < 5; round++) {
      const who = h.tokens.user();
      // Cycle race: x under y and y under x at once.
      const x = await create(who, 'x');
      const y = await create(who, 'y');
      const cycleRace = await Promise.all([
        call(h, who, 'POST', `/service/tasks/${x.id}/move`, { parent_task_id: y.id }),
        call(h, who, 'POST', `/service/tasks/${y.id}/move`, { parent_task_id: x.id }),
      ]);
      expect(cycleRace.map((r) => r.statusCode).sort()).toEqual([200, 409]);
      // Depth race: s (height 3) under c (depth 2) is fine, t under u is fine, both together reach depth 6.
      const [t, c] = await chain(who, 2);
      const [s] = await chain(who, 3);
      const u = await create(who, 'u');
      const depthRace = await Promise.all([
        call(h, who, 'POST', `/service/tasks/${s.id}/move`, { parent_task_id: c.id }),
        call(h, who, 'POST', `/service/tasks/${t.id}/move`, { parent_task_id: u.id }),
      ]);
      expect(depthRace.map((r) => r.statusCode).sort()).toEqual([200, 409]);
      const all = (await call(h, who, 'GET', '/service/routine-tasks/tree')).json();
      expect(all).toHaveLength(8);
      expect(Math.max(...all.map((task: { depth: number }) => task.depth))).toBeLessThanOrEqual(5);
      // Stored depths agree with the parent links (a cycle would also drop tasks from the walk above).
      const byId = new Map(all.map((task: { id: string }) => [task.id, task]));
      for (const task of all) {
        const parent = task.parent_task_id ? (byId.get(task.parent_task_id) as { depth: number }) : undefined;
        expect(task.depth).toBe(parent ? parent.depth + 1 : 1);
      }
    }
  });

  it('reorders among siblings', async () => {
    const who = h.tokens.user();
    const parent = await create(who, 'p');
    const kids = [];
    for (const title of ['k0', 'k1', 'k2', 'k3']) kids.push(await create(who, title, parent.id));
    const res = await call(h, who, 'POST', `/service/tasks/${kids[3].id}/reorder`, { sort_order: 1 });
    expect(res.json()).toMatchObject({ title: 'k3', sort_order: 1 });
    const order = async () =>
      (await call(h, who, 'GET', `/service/tasks/${parent.id}/tree`))
        .json()
        .children.map((k: { title: string; sort_order: number }) => `${k.sort_order}:${k.title}`);
    expect(await order()).toEqual(['0:k0', '1:k3', '2:k1', '3:k2']);
    await call(h, who, 'POST', `/service/tasks/${kids[0].id}/reorder`, { sort_order: 99 });
    expect(await order()).toEqual(['0:k3', '1:k1', '2:k2', '3:k0']);
  });
});
