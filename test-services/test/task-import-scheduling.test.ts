import { type TestUser, waitFor } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunHarness, startRunHarness } from './run-harness.js';

// The task service's bulk import with auto_schedule: the commit's event reaches the real scheduler, whose run
// places the imported tasks through the task service.
let h: RunHarness;

beforeAll(async () => {
  h = await startRunHarness({}, {}, { IMPORT_QUOTA_PER_HOUR: '3', IMPORT_QUOTA_PER_DAY: '4' });
});
afterAll(() => h?.close());

const importRows = (who: TestUser, rows: unknown[], extra: Record<string, unknown> = {}) =>
  h.task.call(who, 'POST', '/service/tasks/bulk-import', { rows, ...extra });

async function waitForJob(who: TestUser, jobId: string, status: string) {
  return waitFor(
    async () => {
      const job = (await h.task.call(who, 'GET', `/service/tasks/bulk-import/jobs/${jobId}`)).json();
      return job.status === status ? job : undefined;
    },
    { what: `job ${jobId} to reach ${status}` },
  );
}

describe('synchronous bulk import', () => {
  it('with auto_schedule, asks the scheduler (an event of the commit) for a run that places the tasks', async () => {
    const who = h.task.tokens.user();
    const res = await importRows(who, [{ title: 'Plan', duration_min: 30 }], { auto_schedule: true });
    expect(res.statusCode, res.body).toBe(200);
    const [taskId] = res.json().created_ids;
    const run = await vi.waitFor(
      async () => {
        const latest = (await h.scheduler.call(who, 'GET', '/service/schedule/runs/latest')).json();
        expect(latest.status).toBe('completed');
        return latest;
      },
      { timeout: 30_000, interval: 50 },
    );
    expect(run.decisions).toEqual([expect.objectContaining({ task_id: taskId })]);
    expect((await h.task.call(who, 'GET', `/service/tasks/${taskId}`)).json()).toMatchObject({
      status: 'scheduled',
      chosen_slot_start: run.decisions[0].chosen_slot_start,
    });
  });
});

describe('import jobs', () => {
  it('parses in the background, commits on request and reports the job', async () => {
    const who = h.task.tokens.user();
    // A parent is one block with its children (contract): 150 two-minute tasks make a 300-minute block that fits
    // one working day.
    const rows = Array.from({ length: 150 }, (_, i) =>
      i === 0
        ? { ref: 'root', title: 'root', duration_min: 2 }
        : { parent_ref: 'root', title: `child ${i}`, duration_min: 2 },
    );
    const created = await h.task.call(who, 'POST', '/service/tasks/bulk-import/jobs', { rows });
    expect(created.statusCode, created.body).toBe(202);
    const { job_id: jobId } = created.json();
    const parsed = await waitForJob(who, jobId, 'parsed');
    expect(parsed).toMatchObject({ total: 150, valid: 150, invalid: 0, errors: [], created_ids: [] });
    const commit = await h.task.call(who, 'POST', `/service/tasks/bulk-import/jobs/${jobId}/commit`, {
      auto_schedule: true,
    });
    expect(commit.statusCode).toBe(202);
    const done = await waitForJob(who, jobId, 'committed');
    expect(done.created_ids).toHaveLength(150);
    // auto_schedule: the commit names the run it asked the scheduler for (an event in the commit's
    // transaction); the scheduler creates the run under that id.
    expect(done).toMatchObject({ auto_schedule: true, schedule_run_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const runId = done.schedule_run_id as string;
    const run = await vi.waitFor(
      async () => {
        const res = (await h.scheduler.call(who, 'GET', `/service/schedule/runs/${runId}`)).json();
        expect(res.status).toBe('completed');
        return res;
      },
      { timeout: 150_000, interval: 100 },
    );
    expect(run.progress).toEqual({ total: 150, done: 150 });
    expect(run.unscheduled).toEqual([]);
    expect(run.decisions).toHaveLength(150);
    const first = run.decisions[0];
    const task = (await h.task.call(who, 'GET', `/service/tasks/${first.task_id}`)).json();
    expect(task).toMatchObject({ status: 'scheduled', chosen_slot_start: first.chosen_slot_start });
    const tree = (await h.task.call(who, 'GET', `/service/tasks/${done.created_ids[0]}/tree`)).json();
    expect(tree.children).toHaveLength(149);
    expect((await h.task.call(who, 'DELETE', `/service/tasks/bulk-import/jobs/${jobId}`)).statusCode).toBe(409);
    const stranger = h.task.tokens.user({ tenantId: who.tenantId });
    expect((await h.task.call(stranger, 'GET', `/service/tasks/bulk-import/jobs/${jobId}`)).statusCode).toBe(404);
    expect((await h.task.call(stranger, 'DELETE', `/service/tasks/bulk-import/jobs/${jobId}`)).statusCode).toBe(404);
    // The auto_schedule run places 150 tasks in 15 batches: generous for a loaded machine (nothing is timed).
  }, 180_000);
});
