import { makeEvent, seriesEvents } from '@routinely/events';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTask, type RunHarness, requestRunThrice, startRunHarness } from './run-harness.js';
import { knowUser, ok } from './scheduler-harness.js';

let h: RunHarness;
beforeAll(async () => {
  h = await startRunHarness();
});
afterAll(() => h?.close());

type Occurrence = {
  id: string;
  status: string;
  chosen_slot_start: string | null;
  earliest_start_at: string;
  deadline_at: string;
};

describe("a routine's new occurrences (task.series.occurrences_generated)", () => {
  it('places them in one builtin run inside their windows, once however often the request arrives', async () => {
    h.clock.set('2026-11-23T06:00:00Z'); // a Monday, before working hours
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    // The user's default provider is a model: a routine's placement still costs nothing.
    await ok(await h.scheduler.call(user, 'PATCH', '/service/settings/me', { llm_provider_default: 'openai' }));
    // A routine with two steps: each occurrence is a block of its steps, placed together.
    const series = await createTask(h, user, { title: 'Stand-up prep', duration_min: 0 });
    for (const title of ['Read the board', 'Write notes']) {
      await createTask(h, user, { title, duration_min: 15, parent_task_id: series.id });
    }
    const recurrence = {
      rule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR',
      window: { start: '09:00', end: '11:00' },
      horizon_days: 4,
    };
    expect((await h.task.call(user, 'PATCH', `/service/tasks/${series.id}`, { recurrence })).statusCode).toBe(200);
    const listed = await h.task.call(
      user,
      'GET',
      `/service/tasks/${series.id}/occurrences?from=2026-11-23&to=2026-11-30`,
    );
    const occurrences = listed.json().items as Occurrence[];
    expect(occurrences).toHaveLength(5);
    const stepIds: string[] = [];
    for (const occurrence of occurrences) {
      const tree = (await h.task.call(user, 'GET', `/service/tasks/${occurrence.id}/tree`)).json();
      stepIds.push(...tree.children.map((c: { id: string }) => c.id));
    }
    expect(stepIds).toHaveLength(10);
    const runId = uuidv7();
    const request = () =>
      makeEvent(
        seriesEvents.occurrencesGenerated,
        { tenantId: user.tenantId, userId: user.userId, at: h.clock.now() },
        { run_id: runId, series_id: series.id, task_ids: [...occurrences.map((o) => o.id), ...stepIds] },
      );
    // The same request again: a redelivery (same envelope) and a republished copy (a new envelope).
    const run = await requestRunThrice(h, user, runId, request);
    expect(run).toMatchObject({ provider: 'builtin', progress: { total: 15, done: 15 }, unscheduled: [] });
    expect(run.decisions.every((d: { source: string }) => d.source === 'solver')).toBe(true);
    const placed = (
      await h.task.call(user, 'GET', `/service/tasks/${series.id}/occurrences?from=2026-11-23&to=2026-11-30`)
    ).json().items as Occurrence[];
    for (const occurrence of placed) {
      expect(occurrence.status).toBe('scheduled');
      expect(new Date(occurrence.chosen_slot_start as string) >= new Date(occurrence.earliest_start_at)).toBe(true);
      const steps = (await h.task.call(user, 'GET', `/service/tasks/${occurrence.id}/tree`)).json().children;
      for (const step of steps) {
        expect(step.status).toBe('scheduled');
        expect(step.chosen_slot_start >= (occurrence.chosen_slot_start as string)).toBe(true);
      }
    }
    const usage = await ok(await h.scheduler.call(user, 'GET', '/service/llm/usage/today'));
    expect(usage.total_usd).toBe(0);
  });

  it('answers the series itself not_schedulable when a run names it', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const series = await createTask(h, user, { title: 'Daily', recurrence: { rule: 'FREQ=DAILY', horizon_days: 1 } });
    const res = await ok(await h.scheduler.call(user, 'POST', '/service/schedule', { task_ids: [series.id] }));
    expect(res.unscheduled).toEqual([expect.objectContaining({ task_id: series.id, reason: 'not_schedulable' })]);
  });
});
