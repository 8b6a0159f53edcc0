import { makeEvent, taskImportEvents } from '@routinely/events';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTask, getTask, type RunHarness, requestRunThrice, startRunHarness } from './run-harness.js';
import { knowUser, ok } from './scheduler-harness.js';

let h: RunHarness;
beforeAll(async () => {
  h = await startRunHarness();
});
afterAll(() => h?.close());

describe("an import's auto_schedule request (task.import.schedule_requested)", () => {
  it('queues one run under the id the task service chose, however often the request arrives, and places the tasks', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const first = await createTask(h, user, { title: 'imported one', duration_min: 30 });
    const second = await createTask(h, user, { title: 'imported two', duration_min: 30 });
    const runId = uuidv7();
    const request = () =>
      makeEvent(
        taskImportEvents.scheduleRequested,
        { tenantId: user.tenantId, userId: user.userId, at: h.clock.now() },
        { run_id: runId, task_ids: [first.id, second.id] },
      );
    // The same request again: a redelivery (same envelope) and a republished copy (a new envelope).
    const run = await requestRunThrice(h, user, runId, request);
    expect(run).toMatchObject({ id: runId, progress: { total: 2, done: 2 }, unscheduled: [] });
    expect(run.decisions.map((d: { task_id: string }) => d.task_id).sort()).toEqual([first.id, second.id].sort());
    expect((await ok(await h.scheduler.call(user, 'GET', '/service/schedule/runs/latest'))).id).toBe(runId);
    expect(await getTask(h, user, first.id)).toMatchObject({ status: 'scheduled' });
    // The run is the envelope's user's: nobody else reads it.
    const stranger = h.scheduler.tokens.user({ tenantId: user.tenantId });
    expect((await h.scheduler.call(stranger, 'GET', `/service/schedule/runs/${runId}`)).statusCode).toBe(404);
  });
});
