import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTarget, type Target } from '../src/harness.js';
import { registerUser } from '../src/users.js';

// Issue 9 item 2 across the real services: racing slot changes go through the task service's outbox and
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
    const base = Date.now() + 24 * 3_600_000;
    const tasks: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await call(target, 'POST', '/api/v1/service/tasks', {
        token: user.token,
        body: { title: `racer ${i}`, reminder_channels: ['inapp'], reminder_offset_min: OFFSET_MIN },
      });
      expect(res.status).toBe(201);
      tasks.push(res.json.id);
    }
    const patches = tasks.flatMap((id, t) =>
      Array.from({ length: 6 }, (_, p) => {
        const start = new Date(base + (t * 6 + p) * 15 * 60_000);
        return call(target, 'PATCH', `/api/v1/service/tasks/${id}`, {
          token: user.token,
          body: {
            chosen_slot_start: start.toISOString(),
            chosen_slot_end: new Date(start.getTime() + 15 * 60_000).toISOString(),
          },
        });
      }),
    );
    expect((await Promise.all(patches)).map((res) => res.status)).toEqual(Array(patches.length).fill(200));
    const expected: Record<string, string> = {};
    for (const id of tasks) {
      const task = await call(target, 'GET', `/api/v1/service/tasks/${id}`, { token: user.token });
      expected[id] = new Date(Date.parse(task.json.chosen_slot_start) - OFFSET_MIN * 60_000).toISOString();
    }
    const reminders = async () => {
      const res = await call(target, 'GET', '/api/v1/service/reminders/upcoming?days=30&limit=100', {
        token: user.token,
      });
      return Object.fromEntries(
        (res.json as { task_id: string; remind_at: string }[]).map((r) => [r.task_id, r.remind_at]),
      );
    };
    await expect.poll(reminders, { timeout: 30_000 }).toEqual(expected);
  });
});
