import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTask, type RunHarness, startRunHarness } from './run-harness.js';
import { knowUser, ok } from './scheduler-harness.js';

let h: RunHarness;
beforeAll(async () => {
  h = await startRunHarness();
});
afterAll(async () => {
  await h?.close();
});

type User = Parameters<RunHarness['scheduler']['call']>[0];
const schedule = async (user: User, taskIds: string[]) =>
  ok(await h.scheduler.call(user, 'POST', '/service/schedule', { task_ids: taskIds }));
const starts = (run: { decisions: { chosen_slot_start: string }[] }) => run.decisions.map((d) => d.chosen_slot_start);

async function userWithBuffer(bufferMin: number) {
  const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
  const settings = await ok(await h.scheduler.call(user, 'PATCH', '/service/settings/me', { buffer_min: bufferMin }));
  expect(settings.buffer_min).toBe(bufferMin);
  return user;
}

// The manual clock starts on Saturday 2026-11-21 08:00 UTC; default working hours are Mon-Fri 09:00-17:00 UTC.
describe('buffer_min', () => {
  it('defaults to 0 and is refused outside 0..120, naming the field', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    expect((await ok(await h.scheduler.call(user, 'GET', '/service/settings/me'))).buffer_min).toBe(0);
    for (const bad of [-1, 121, 1.5, '15']) {
      const res = await h.scheduler.call(user, 'PATCH', '/service/settings/me', { buffer_min: bad });
      expect(res.statusCode).toBe(422);
      expect(res.json().errors[0].loc).toEqual(['body', 'buffer_min']);
    }
  });

  it('keeps the buffer after the user’s other scheduled tasks', async () => {
    const user = await userWithBuffer(15);
    const first = await createTask(h, user, { title: 'first', duration_min: 60 });
    expect(starts(await schedule(user, [first.id]))).toEqual(['2026-11-23T09:00:00.000Z']);
    const second = await createTask(h, user, { title: 'second', duration_min: 60 });
    expect(starts(await schedule(user, [second.id]))).toEqual(['2026-11-23T10:15:00.000Z']);
  });

  it('keeps the buffer around no-go windows, not at the edges of working hours', async () => {
    const user = await userWithBuffer(30);
    const window = { kind: 'weekly', days: ['mon'], start: '09:00', end: '10:00', label: 'standup' };
    expect((await h.scheduler.call(user, 'POST', '/service/settings/no-go-windows', window)).statusCode).toBe(201);
    const task = await createTask(h, user, { title: 'after the no-go', duration_min: 60 });
    expect(starts(await schedule(user, [task.id]))).toEqual(['2026-11-23T10:30:00.000Z']);
    const late = await createTask(h, user, {
      title: 'last hour of the day',
      duration_min: 60,
      earliest_start_at: '2026-11-24T16:00:00Z',
    });
    expect(starts(await schedule(user, [late.id]))).toEqual(['2026-11-24T16:00:00.000Z']);
  });

  it('keeps the buffer between the tasks one run places', async () => {
    const user = await userWithBuffer(10);
    const a = await createTask(h, user, { title: 'a', duration_min: 30, priority: 1 });
    const b = await createTask(h, user, { title: 'b', duration_min: 30, priority: 2 });
    expect(starts(await schedule(user, [a.id, b.id])).sort()).toEqual([
      '2026-11-23T09:00:00.000Z',
      '2026-11-23T09:40:00.000Z',
    ]);
  });

  it('changes nothing at 0', async () => {
    const user = await userWithBuffer(0);
    const first = await createTask(h, user, { title: 'first', duration_min: 60 });
    await schedule(user, [first.id]);
    const second = await createTask(h, user, { title: 'second', duration_min: 60 });
    expect(starts(await schedule(user, [second.id]))).toEqual(['2026-11-23T10:00:00.000Z']);
  });
});
