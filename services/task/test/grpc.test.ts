import { createRpcClient, InternalAuth, type RpcClient, Server, startRpcServer, stopRpcServer } from '@routinely/grpc';
import { task_v1 } from '@routinely/proto';
import type { TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { externalFor, publishHandled, scheduledTask, upserted } from './calendar-helpers.js';
import { call, createTask, type Harness, INTERNAL_SECRET, outboxEvents, startHarness } from './harness.js';

let h: Harness;
let server: Server;
let client: RpcClient<typeof task_v1.TaskServiceService>;
let user: TestUser;
let address: string;

beforeAll(async () => {
  h = await startHarness();
  server = new Server();
  h.service.addGrpc?.(server);
  address = await startRpcServer(server, '127.0.0.1', 0);
  client = createRpcClient(task_v1.TaskServiceService, address, new InternalAuth(INTERNAL_SECRET, 'scheduler'));
  user = h.tokens.user();
});
afterAll(async () => {
  client?.close();
  if (server) await stopRpcServer(server);
  await h?.close();
});

const actorOf = (u: TestUser) => ({ tenantId: u.tenantId, userId: u.userId, permissions: u.permissions });

const create = (title: string, who = user) => createTask(h, who, { title });

describe('task.v1.TaskService over loopback gRPC', () => {
  it("GetTasks returns the caller's tasks with dependencies and names the ids it could not see", async () => {
    const a = await create('a');
    const b = await create('b');
    await call(h, user, 'POST', '/service/tasks/dependencies', { task_id: b.id, depends_on_id: a.id, lag_min: 15 });
    const foreign = await create('foreign', h.tokens.user({ tenantId: user.tenantId }));
    const res = await client.getTasks(
      { taskIds: [a.id, b.id, foreign.id], includeDescendants: false },
      { actor: actorOf(user) },
    );
    expect(res.tasks.map((t) => t.title)).toEqual(['a', 'b']);
    expect(res.tasks[0]).toMatchObject({ status: 'pending', durationMin: 30, depth: 1, chosenSlotStart: '' });
    expect(res.dependencies).toEqual([
      expect.objectContaining({ taskId: b.id, dependsOnId: a.id, depType: 'finish_to_start', lagMin: 15 }),
    ]);
    expect(res.missingIds).toEqual([foreign.id]);
  });

  it("GetTasks marks a routine's template (the series and its own steps) as recurring, never its occurrences", async () => {
    const owner = h.tokens.user();
    const series = await createTask(h, owner, {
      title: 'routine',
      recurrence: { rule: 'FREQ=DAILY', horizon_days: 1 },
    });
    const step = await createTask(h, owner, { title: 'step', parent_task_id: series.id });
    const occurrences = (await call(h, owner, 'GET', `/service/tasks?series_id=${series.id}`)).json();
    const res = await client.getTasks(
      { taskIds: [series.id, ...occurrences.map((o: { id: string }) => o.id)], includeDescendants: true },
      { actor: actorOf(owner) },
    );
    const recurring = Object.fromEntries(res.tasks.map((t) => [t.id, t.recurring]));
    expect(recurring[series.id]).toBe(true);
    expect(recurring[step.id]).toBe(true);
    expect(occurrences.length).toBeGreaterThan(0);
    for (const occurrence of occurrences) expect(recurring[occurrence.id]).toBe(false);
    // Every other task read (an occurrence's copied steps) is not the template's.
    for (const task of res.tasks.filter((t) => t.id !== series.id && t.id !== step.id)) {
      expect(task.recurring, task.title).toBe(false);
    }
    // A step asked for without its series: its walk up leaves the tasks read and goes on in the database.
    const grandchild = await createTask(h, owner, { title: 'sub-step', parent_task_id: step.id });
    const alone = await client.getTasks(
      { taskIds: [grandchild.id, occurrences[0].id], includeDescendants: false },
      { actor: actorOf(owner) },
    );
    expect(Object.fromEntries(alone.tasks.map((t) => [t.id, t.recurring]))).toEqual({
      [grandchild.id]: true,
      [occurrences[0].id]: false,
    });
    const refused = client.applySlots(
      {
        withoutTasks: false,
        assignments: [
          { taskId: series.id, chosenSlotStart: '2026-11-24T09:00:00Z', chosenSlotEnd: '2026-11-24T10:00:00Z' },
        ],
      },
      { actor: actorOf(owner) },
    );
    await expect(refused).rejects.toThrow(/routine's series/);
  });

  it('ApplySlots schedules many tasks in one transaction and emits scheduled events', async () => {
    const a = await create('slot a');
    const b = await create('slot b');
    const res = await client.applySlots(
      {
        withoutTasks: false,
        assignments: [
          { taskId: a.id, chosenSlotStart: '2026-11-22T09:00:00Z', chosenSlotEnd: '2026-11-22T09:30:00Z' },
          { taskId: b.id, chosenSlotStart: '2026-11-22T10:00:00Z', chosenSlotEnd: '2026-11-22T11:00:00Z' },
        ],
      },
      { actor: actorOf(user) },
    );
    expect(res.tasks.map((t) => [t.status, t.chosenSlotStart])).toEqual([
      ['scheduled', '2026-11-22T09:00:00.000Z'],
      ['scheduled', '2026-11-22T10:00:00.000Z'],
    ]);
    const events = (await outboxEvents(h)).filter((e) => [a.id, b.id].includes(e.taskId)).map((e) => e.type);
    expect(events).toEqual(['task.task.created', 'task.task.created', 'task.task.scheduled', 'task.task.scheduled']);
    const cleared = await client.applySlots(
      { withoutTasks: false, assignments: [{ taskId: a.id, chosenSlotStart: '', chosenSlotEnd: '' }] },
      { actor: actorOf(user) },
    );
    expect(cleared.tasks[0]).toMatchObject({ status: 'pending', chosenSlotStart: '' });
    // A caller that does not read the saved tasks gets none back; the slot is applied all the same.
    const unanswered = await client.applySlots(
      {
        assignments: [{ taskId: a.id, chosenSlotStart: '2026-11-22T12:00:00Z', chosenSlotEnd: '2026-11-22T12:30:00Z' }],
        withoutTasks: true,
      },
      { actor: actorOf(user) },
    );
    expect(unanswered.tasks).toEqual([]);
    const [saved] = (await client.getTasks({ taskIds: [a.id], includeDescendants: false }, { actor: actorOf(user) }))
      .tasks;
    expect(saved).toMatchObject({ status: 'scheduled', chosenSlotStart: '2026-11-22T12:00:00.000Z' });
  });

  it('is all or nothing: an unknown task or a bad slot changes nothing', async () => {
    const a = await create('atomic');
    const foreign = await create('not yours', h.tokens.user());
    const slot = { chosenSlotStart: '2026-11-22T09:00:00Z', chosenSlotEnd: '2026-11-22T09:30:00Z' };
    await expect(
      client.applySlots(
        {
          withoutTasks: false,
          assignments: [
            { taskId: a.id, ...slot },
            { taskId: foreign.id, ...slot },
          ],
        },
        { actor: actorOf(user) },
      ),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      client.applySlots(
        {
          withoutTasks: false,
          assignments: [
            { taskId: a.id, chosenSlotStart: '2026-11-22T09:00:00Z', chosenSlotEnd: '2026-11-22T08:00:00Z' },
          ],
        },
        { actor: actorOf(user) },
      ),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    // Requests are validated by zod schemas; the status details name the field.
    await expect(
      client.getTasks({ taskIds: [a.id, 'not-a-uuid'], includeDescendants: false }, { actor: actorOf(user) }),
    ).rejects.toMatchObject({
      code: 'validation_failed',
      message: expect.stringMatching(/^taskIds\.1: /),
    });
    await expect(
      client.applySlots(
        {
          withoutTasks: false,
          assignments: [{ taskId: a.id, chosenSlotStart: '2026-11-22T09:00:00', chosenSlotEnd: '' }],
        },
        { actor: actorOf(user) },
      ),
    ).rejects.toMatchObject({
      code: 'validation_failed',
      message: expect.stringMatching(/assignments\.0\.chosenSlotStart/),
    });
    expect((await call(h, user, 'GET', `/service/tasks/${a.id}`)).json().status).toBe('pending');
  });

  it('refuses callers without a valid service token, without a user, or without the permission', async () => {
    const a = await create('guarded');
    const forged = createRpcClient(
      task_v1.TaskServiceService,
      address,
      new InternalAuth('another-secret-that-is-long-enough-000', 'scheduler'),
    );
    await expect(
      forged.getTasks({ taskIds: [a.id], includeDescendants: false }, { actor: actorOf(user) }),
    ).rejects.toMatchObject({
      code: 'not_authenticated',
    });
    forged.close();
    await expect(client.getTasks({ taskIds: [a.id], includeDescendants: false })).rejects.toMatchObject({
      code: 'forbidden',
    });
    await expect(
      client.getTasks(
        { taskIds: [a.id], includeDescendants: false },
        { actor: { ...actorOf(user), permissions: ['SERVICE_WEBHOOK_READ'] } },
      ),
    ).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('GetBusy returns busy blocks of every source over the window, leaving out the excluded tasks', async () => {
    const who = h.tokens.user();
    const a = await scheduledTask(h, who, 'task a', '2026-12-01T09:00:00Z', '2026-12-01T10:00:00Z');
    const b = await scheduledTask(h, who, 'task b', '2026-12-01T12:00:00Z', '2026-12-01T13:00:00Z');
    const meeting = externalFor({ title: 'meeting', start: '2026-12-01T09:30:00Z', end: '2026-12-01T10:30:00Z' });
    await publishHandled(h.transport, upserted(who, meeting));
    await publishHandled(h.transport, upserted(who, externalFor({ busy: false, start: '2026-12-01T15:00:00Z' })));
    const window = { windowStart: '2026-12-01T00:00:00+01:00', windowEnd: '2026-12-02T00:00:00Z' };
    const res = await client.getBusy({ ...window, excludeTaskIds: [] }, { actor: actorOf(who) });
    expect(res.blocks).toEqual([
      {
        start: '2026-12-01T09:00:00.000Z',
        end: '2026-12-01T10:30:00.000Z',
        source: 'mixed',
        sources: [
          { source: 'task', id: a.id, title: 'task a' },
          { source: 'google', id: meeting.id, title: 'meeting' },
        ],
      },
      {
        start: '2026-12-01T12:00:00.000Z',
        end: '2026-12-01T13:00:00.000Z',
        source: 'task',
        sources: [{ source: 'task', id: b.id, title: 'task b' }],
      },
    ]);
    const without = await client.getBusy({ ...window, excludeTaskIds: [a.id, b.id] }, { actor: actorOf(who) });
    expect(without.blocks).toEqual([expect.objectContaining({ source: 'google', start: '2026-12-01T09:30:00.000Z' })]);
    const stranger = h.tokens.user({ tenantId: who.tenantId });
    expect((await client.getBusy({ ...window, excludeTaskIds: [] }, { actor: actorOf(stranger) })).blocks).toEqual([]);
  });

  it('GetBusy validates the window and needs a user with the read or schedule permission', async () => {
    const actor = { actor: actorOf(user) };
    await expect(
      client.getBusy(
        { windowStart: '2026-12-01T00:00:00', windowEnd: '2026-12-02T00:00:00Z', excludeTaskIds: [] },
        actor,
      ),
    ).rejects.toMatchObject({ code: 'validation_failed', message: expect.stringMatching(/^windowStart: /) });
    await expect(
      client.getBusy(
        { windowStart: '2026-12-02T00:00:00Z', windowEnd: '2026-12-01T00:00:00Z', excludeTaskIds: [] },
        actor,
      ),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(
      client.getBusy(
        { windowStart: '2026-01-01T00:00:00Z', windowEnd: '2027-01-02T00:00:01Z', excludeTaskIds: [] },
        actor,
      ),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(
      client.getBusy(
        { windowStart: '2026-12-01T00:00:00Z', windowEnd: '2026-12-02T00:00:00Z', excludeTaskIds: ['x'] },
        actor,
      ),
    ).rejects.toMatchObject({ code: 'validation_failed', message: expect.stringMatching(/^excludeTaskIds\.0: /) });
    const window = { windowStart: '2026-12-01T00:00:00Z', windowEnd: '2026-12-02T00:00:00Z', excludeTaskIds: [] };
    await expect(client.getBusy(window)).rejects.toMatchObject({ code: 'forbidden' });
    await expect(
      client.getBusy(window, { actor: { ...actorOf(user), permissions: ['SERVICE_WEBHOOK_READ'] } }),
    ).rejects.toMatchObject({ code: 'forbidden' });
    const scheduler = { ...actorOf(user), permissions: ['SERVICE_SCHEDULE_RUN' as const] };
    expect((await client.getBusy(window, { actor: scheduler })).blocks).toEqual([]);
  });
});
