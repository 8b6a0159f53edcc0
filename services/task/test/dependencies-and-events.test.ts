import { type EventEnvelope, JetStreamTransport, type TaskSnapshot } from '@routinely/events';
import { defined, quietLogger, requireEnv, type TestUser, uniqueName } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTask, type Harness, startHarness } from './harness.js';

let h: Harness;
let transport: JetStreamTransport;
let user: TestUser;

beforeAll(async () => {
  transport = await JetStreamTransport.connect(requireEnv('NATS_URL'), quietLogger(), uniqueName('task'));
  h = await startHarness({}, { transport });
  user = h.tokens.user();
});
afterAll(async () => {
  await transport?.deleteStreams();
  await h?.close();
});

const create = (title: string) => createTask(h, user, { title });
const link = (taskId: string, dependsOnId: string, extra: Record<string, unknown> = {}) =>
  call(h, user, 'POST', '/service/tasks/dependencies', { task_id: taskId, depends_on_id: dependsOnId, ...extra });

describe('dependencies', () => {
  it('creates typed edges, lists them both ways and deletes them', async () => {
    const a = await create('a');
    const b = await create('b');
    const res = await link(b.id, a.id, { dep_type: 'start_to_start', lag_min: -30 });
    expect(res.statusCode).toBe(201);
    const dep = res.json();
    expect(dep).toMatchObject({ task_id: b.id, depends_on_id: a.id, dep_type: 'start_to_start', lag_min: -30 });
    expect((await call(h, user, 'GET', `/service/tasks/${a.id}/dependencies`)).json()).toMatchObject({
      depends_on: [],
      dependents: [{ id: dep.id }],
    });
    expect((await call(h, user, 'DELETE', `/service/tasks/dependencies/${dep.id}`)).statusCode).toBe(204);
    expect((await call(h, user, 'DELETE', `/service/tasks/dependencies/${dep.id}`)).statusCode).toBe(404);
  });

  it('answers 409 on a duplicate or a cycle, 422 on a self-dependency or a bad dep_type', async () => {
    const [a, b, c] = [await create('a'), await create('b'), await create('c')];
    expect((await link(b.id, a.id)).statusCode).toBe(201);
    expect((await link(c.id, b.id)).statusCode).toBe(201);
    const dup = await link(b.id, a.id);
    expect([dup.statusCode, dup.json().code]).toEqual([409, 'duplicate_dependency']);
    const cycle = await link(a.id, c.id);
    expect([cycle.statusCode, cycle.json().code]).toEqual([409, 'cycle_detected']);
    const self = await link(a.id, a.id);
    expect([self.statusCode, self.json().errors[0].loc]).toEqual([422, ['body', 'depends_on_id']]);
    expect((await link(a.id, b.id, { dep_type: 'whenever' })).statusCode).toBe(422);
    expect((await link(a.id, b.id, { lag_min: 10_081 })).statusCode).toBe(422);
  });

  it('keeps the graph acyclic when opposite edges race', async () => {
    const a = await create('a');
    const b = await create('b');
    const results = await Promise.all([link(a.id, b.id), link(b.id, a.id)]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409]);
  });
});

describe('events over JetStream', () => {
  it('publishes created, scheduled and deleted with the task snapshot a reminder needs', async () => {
    const seen: EventEnvelope<{ task: TaskSnapshot }>[] = [];
    const reader = {
      durable: uniqueName('reader'),
      subjects: ['task.task.>'],
      policy: { ackWaitMs: 30_000, maxDeliver: 3, backoffMs: [100] },
    };
    const sub = await transport.subscribe(reader, async ({ payload }) => {
      seen.push(payload as EventEnvelope<{ task: TaskSnapshot }>);
    });
    try {
      const task = (
        await call(h, user, 'POST', '/service/tasks', {
          title: 'Call mum',
          description: 'birthday',
          tags: ['family'],
          reminder_channels: ['email', 'webhook'],
          reminder_offset_min: 30,
        })
      ).json();
      await call(h, user, 'PATCH', `/service/tasks/${task.id}`, {
        chosen_slot_start: '2026-11-22T18:00:00Z',
        chosen_slot_end: '2026-11-22T18:15:00Z',
      });
      await call(h, user, 'DELETE', `/service/tasks/${task.id}`);
      const mine = () => seen.filter((e) => e.data.task.id === task.id);
      for (let i = 0; i < 200 && mine().length < 3; i++) await new Promise((r) => setTimeout(r, 25));
      expect(mine().map((e) => e.type)).toEqual(['task.task.created', 'task.task.scheduled', 'task.task.deleted']);
      const scheduled = defined(mine()[1]);
      expect(scheduled).toMatchObject({ tenant_id: user.tenantId, user_id: user.userId });
      expect(scheduled.data.task).toMatchObject({
        title: 'Call mum',
        description: 'birthday',
        priority: 3,
        duration_min: 30,
        tags: ['family'],
        status: 'scheduled',
        chosen_slot_start: '2026-11-22T18:00:00.000Z',
        chosen_slot_end: '2026-11-22T18:15:00.000Z',
        reminder_channels: ['email', 'webhook'],
        reminder_offset_min: 30,
      });
    } finally {
      await sub.stop();
    }
  });
});
