import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTask, type Harness, outboxEvents, startHarness } from './harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const slotAt = (hour: number, minute: number) => ({
  chosen_slot_start: `2026-12-01T${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}:00.000Z`,
  chosen_slot_end: `2026-12-01T${String(hour).padStart(2, '0')}:${String(minute + 15).padStart(2, '0')}:00.000Z`,
});

// The clock does not move while the patches race (as when they land in one millisecond), so only the version
// can tell the events of one task apart.
describe('task versions', () => {
  it('parallel patches on many tasks: every event has its own version, the newest carries the final slot', async () => {
    const user = h.tokens.user();
    const tasks = await Promise.all(
      Array.from({ length: 8 }, (_, i) => createTask(h, user, { title: `racer ${i}`, reminder_channels: ['inapp'] })),
    );
    const patches = tasks.flatMap((task, t) =>
      Array.from({ length: 6 }, (_, p) => call(h, user, 'PATCH', `/service/tasks/${task.id}`, slotAt(8 + t, p * 5))),
    );
    expect((await Promise.all(patches)).map((res) => res.statusCode)).toEqual(Array(patches.length).fill(200));
    const events = await outboxEvents(h);
    for (const task of tasks) {
      const mine = events.filter((event) => event.taskId === task.id);
      const versions = mine.map((event) => Number(event.task.version)).sort((a, b) => a - b);
      expect(versions).toEqual([1, 2, 3, 4, 5, 6, 7]);
      const newest = mine.find((event) => event.task.version === 7);
      const final = (await call(h, user, 'GET', `/service/tasks/${task.id}`)).json();
      expect(newest?.task.chosen_slot_start).toBe(final.chosen_slot_start);
    }
  });

  it('a move and a delete are changes too: each event carries a newer version than the one before', async () => {
    const user = h.tokens.user();
    const parent = await createTask(h, user, { title: 'parent' });
    const child = await createTask(h, user, { title: 'child' });
    expect(
      (await call(h, user, 'POST', `/service/tasks/${child.id}/move`, { parent_task_id: parent.id })).statusCode,
    ).toBe(200);
    expect((await call(h, user, 'DELETE', `/service/tasks/${parent.id}`)).statusCode).toBe(204);
    const childEvents = (await outboxEvents(h)).filter((event) => event.taskId === child.id);
    expect(childEvents.map((event) => event.type)).toEqual([
      'task.task.created',
      'task.task.updated',
      'task.task.deleted',
    ]);
    const versions = childEvents.map((event) => Number(event.task.version));
    expect(versions[0]).toBe(1);
    for (let i = 1; i < versions.length; i++) expect(versions[i]).toBeGreaterThan(versions[i - 1] ?? 0);
  });
});
