import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, startTarget, type Target } from '../src/harness.js';
import { registerUser } from '../src/users.js';

let target: Target;
beforeAll(async () => {
  target = await startTarget();
});
afterAll(() => target?.close());

describe('scheduling runs across the scheduler and the task service', () => {
  it('POST /schedule places a task, the task becomes scheduled and its reminder follows', async () => {
    const user = await registerUser(target);
    const task = await call(target, 'POST', '/api/v1/service/tasks', {
      token: user.token,
      body: { title: 'Plan the week', duration_min: 30 },
    });
    expect(task.status, task.text).toBe(201);
    const run = await call(target, 'POST', '/api/v1/service/schedule', {
      token: user.token,
      body: { task_ids: [task.json.id] },
    });
    expect(run.status, run.text).toBe(200);
    expect(run.json).toMatchObject({ status: 'completed', provider: 'builtin', unscheduled: [] });
    const decision = run.json.decisions[0];
    expect(decision).toMatchObject({ task_id: task.json.id, source: 'solver', applied: true });
    const read = await call(target, 'GET', `/v1/service/tasks/${task.json.id}`, { token: user.token });
    expect(read.json).toMatchObject({ status: 'scheduled', chosen_slot_start: decision.chosen_slot_start });
    await vi.waitFor(
      async () => {
        const upcoming = await call(target, 'GET', '/api/v1/service/reminders/upcoming?days=14', { token: user.token });
        expect(upcoming.json.map((r: { task_id: string }) => r.task_id)).toContain(task.json.id);
      },
      { timeout: 30_000, interval: 200 },
    );
    const latest = await call(target, 'GET', '/v1/service/schedule/runs/latest', { token: user.token });
    expect(latest.json).toMatchObject({ id: run.json.run_id, progress: { total: 1, done: 1 } });
  });
});
