import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { aliasApiFor, apiFor, startTarget, type Target } from '../src/harness.js';
import { registerUser } from '../src/users.js';

let target: Target;
beforeAll(async () => {
  target = await startTarget();
});
afterAll(() => target?.close());

describe('scheduling runs across the scheduler and the task service', () => {
  it('POST /schedule places a task, the task becomes scheduled and its reminder follows', async () => {
    const user = await registerUser(target);
    const api = apiFor(target, user.token);
    const onAlias = aliasApiFor(target, user.token);
    // Not before two days from now: during working hours the solver would otherwise pick a slot starting
    // within the reminder's 10 minutes, whose reminder fires at once and is never "upcoming".
    const earliest = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const task = await api.POST('/api/v1/service/tasks', {
      body: { title: 'Plan the week', duration_min: 30, earliest_start_at: earliest },
    });
    expect(task.response.status, JSON.stringify(task.error)).toBe(201);
    const taskId = String(task.data?.id);
    const run = await api.POST('/api/v1/service/schedule', { body: { task_ids: [taskId] } });
    expect(run.response.status, JSON.stringify(run.error)).toBe(200);
    expect(run.data).toMatchObject({ status: 'completed', provider: 'builtin', unscheduled: [] });
    // A run that finished in the request answers its decisions; a queued one (202) would not.
    const decision = run.data && 'decisions' in run.data ? run.data.decisions[0] : undefined;
    expect(decision).toMatchObject({ task_id: taskId, source: 'solver', applied: true });
    const read = await onAlias.GET('/api/v1/service/tasks/{task_id}', { params: { path: { task_id: taskId } } });
    expect(read.data).toMatchObject({ status: 'scheduled', chosen_slot_start: decision?.chosen_slot_start });
    await vi.waitFor(
      async () => {
        const upcoming = await api.GET('/api/v1/service/reminders/upcoming', { params: { query: { days: 14 } } });
        expect(upcoming.data?.map((r) => r.task_id)).toContain(taskId);
      },
      { timeout: 30_000, interval: 200 },
    );
    const latest = await onAlias.GET('/api/v1/service/schedule/runs/latest');
    expect(latest.data).toMatchObject({ id: run.data?.run_id, progress: { total: 1, done: 1 } });
  });
});
