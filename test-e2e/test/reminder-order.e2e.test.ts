import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFor, startTarget, type Target } from '../src/harness.js';
import { registerUser } from '../src/users.js';

// Across the real services: racing slot changes go through the task service's outbox and
// JetStream to the delivery service; every reminder must end at its task's final slot.
let target: Target;

beforeAll(async () => {
  target = await startTarget();
});
afterAll(async () => {
  await target?.close();
});

const OFFSET_MIN = 10;

describe('reminders under racing slot changes', () => {
  it('6 parallel PATCHes with different slots on each of 8 tasks leave every reminder at the final slot', async () => {
    const user = await registerUser(target);
    const api = apiFor(target, user.token);
    const base = Date.now() + 24 * 3_600_000;
    const tasks: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await api.POST('/api/v1/service/tasks', {
        body: { title: `racer ${i}`, reminder_channels: ['inapp'], reminder_offset_min: OFFSET_MIN },
      });
      expect(res.response.status).toBe(201);
      tasks.push(String(res.data?.id));
    }
    const patches = tasks.flatMap((id, t) =>
      Array.from({ length: 6 }, (_, p) => {
        const start = new Date(base + (t * 6 + p) * 15 * 60_000);
        return api.PATCH('/api/v1/service/tasks/{task_id}', {
          params: { path: { task_id: id } },
          body: {
            chosen_slot_start: start.toISOString(),
            chosen_slot_end: new Date(start.getTime() + 15 * 60_000).toISOString(),
          },
        });
      }),
    );
    expect((await Promise.all(patches)).map((res) => res.response.status)).toEqual(Array(patches.length).fill(200));
    const expected: Record<string, string> = {};
    for (const id of tasks) {
      const task = await api.GET('/api/v1/service/tasks/{task_id}', { params: { path: { task_id: id } } });
      expected[id] = new Date(Date.parse(String(task.data?.chosen_slot_start)) - OFFSET_MIN * 60_000).toISOString();
    }
    const reminders = async () => {
      const res = await api.GET('/api/v1/service/reminders/upcoming', { params: { query: { days: 30, limit: 100 } } });
      return Object.fromEntries((res.data ?? []).map((r) => [r.task_id, r.remind_at]));
    };
    await expect.poll(reminders, { timeout: 30_000 }).toEqual(expected);
  });
});
