import { makeEvent, seriesEvents } from '@routinely/events';
import type { TestUser } from '@routinely/testkit';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTask, getTask, type RunHarness, startRunHarness } from './run-harness.js';
import { knowUser, ok } from './scheduler-harness.js';

// A run resumed after a crash wrote the plan it computed before the crash over what other runs
// placed meanwhile, and a task deleted while its run waited stalled the run until it failed.

const LEASE_MS = 60_000;
let h: RunHarness;
/** What the engine does between "computed" (the batch's decisions committed) and "applied"; set per test. */
let betweenComputedAndApplied: ((run: { id: string; done: number }) => Promise<void>) | undefined;

beforeAll(async () => {
  h = await startRunHarness(
    {
      SCHEDULER_RUN_BATCH_SIZE: '10',
      // Builtin runs in batches of 10 too: the process dies between two of them.
      SCHEDULER_RUN_SOLVER_BATCH_SIZE: '10',
      SCHEDULER_RUN_LEASE_MS: String(LEASE_MS),
    },
    { runHooks: { afterBatch: async (run) => betweenComputedAndApplied?.(run) } },
  );
});
afterAll(() => h?.close());

type Run = {
  status: string;
  progress: { total: number; done: number };
  error: string | null;
  unscheduled: { task_id: string; reason: string }[];
  decisions: { task_id: string; applied: boolean; supersedes_id: string | null }[];
};

const runOf = async (user: TestUser, id: string): Promise<Run> =>
  ok(await h.scheduler.call(user, 'GET', `/service/schedule/runs/${id}`));

function completed(user: TestUser, id: string) {
  return vi.waitFor(
    async () => {
      const run = await runOf(user, id);
      expect(run.status).toBe('completed');
      return run;
    },
    { timeout: 20_000, interval: 50 },
  );
}

async function tasksOf(user: TestUser, count: number, label: string) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++)
    ids.push((await createTask(h, user, { title: `${label} ${i}`, duration_min: 30 })).id);
  return ids;
}

describe('a run resumed after its process died between "computed" and "applied"', () => {
  it('checks its plan against what was placed meanwhile and places again what overlaps: no double booking', {
    timeout: 90_000,
  }, async () => {
    h.clock.set('2026-11-23T06:00:00Z'); // a Monday before working hours
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const background = await tasksOf(user, 12, 'long run');
    let crashed = false;
    betweenComputedAndApplied = async () => {
      if (crashed) return;
      crashed = true;
      throw new Error('simulated kill -9 between computed and applied');
    };
    const queued = await h.scheduler.call(user, 'POST', '/service/schedule', { task_ids: background });
    expect(queued.statusCode, queued.body).toBe(202);
    const runId = queued.json().run_id as string;
    // The first batch's plan is committed, not applied; the run keeps its dead holder's lease.
    const halted = await vi.waitFor(
      async () => {
        const run = await runOf(user, runId);
        expect(run.progress.done).toBe(10);
        expect(run.error).not.toBeNull();
        return run;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(halted.decisions.filter((d) => !d.applied)).toHaveLength(10);

    // Meanwhile another run of the user places its tasks: the time the dead plan chose is free for it.
    const meanwhile = await tasksOf(user, 5, 'meanwhile');
    const sync = await ok(await h.scheduler.call(user, 'POST', '/service/schedule', { task_ids: meanwhile }));
    expect(sync.decisions).toHaveLength(5);

    // The lease expires; the worker resumes the run.
    h.clock.advance(LEASE_MS + 1_000);
    const done = await completed(user, runId);
    expect(done.progress).toEqual({ total: 12, done: 12 });
    expect(done.unscheduled).toEqual([]);

    const slots: (readonly [string, string])[] = [];
    for (const id of [...background, ...meanwhile]) {
      const task = await getTask(h, user, id);
      expect(task.status).toBe('scheduled');
      slots.push([task.chosen_slot_start as string, task.chosen_slot_end as string] as const);
    }
    slots.sort(([a], [b]) => (a < b ? -1 : 1));
    // No two of the user's slots overlap: each starts at or after the end of the one before.
    const overlaps = slots.filter(([start], i) => i > 0 && start < (slots[i - 1]?.[1] as string));
    expect(overlaps).toEqual([]);
    // The stale plan was computed again: each of its tasks got a decision superseding the one never applied.
    expect(done.decisions.filter((d) => d.supersedes_id !== null).length).toBeGreaterThan(0);
  });
});

describe('a task deleted while its run is under way', () => {
  it('is answered unscheduled and the rest of the run is placed: the run ends', { timeout: 60_000 }, async () => {
    h.clock.set('2026-11-23T06:00:00Z');
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const ids = await tasksOf(user, 12, 'deleted mid-run');
    let deleted: string | undefined;
    // While the first batch's slots wait to be applied (a model call's time), the user deletes one of them.
    betweenComputedAndApplied = async (run) => {
      if (deleted) return;
      const first = (await runOf(user, run.id)).decisions[0]?.task_id as string;
      deleted = first;
      expect((await h.task.call(user, 'DELETE', `/service/tasks/${first}`)).statusCode).toBe(204);
    };
    const queued = await h.scheduler.call(user, 'POST', '/service/schedule', { task_ids: ids });
    expect(queued.statusCode, queued.body).toBe(202);
    const run = await completed(user, queued.json().run_id);
    betweenComputedAndApplied = undefined;
    expect(run.error).toBeNull();
    expect(run.progress).toEqual({ total: 12, done: 12 });
    expect(run.unscheduled).toEqual([{ task_id: deleted, reason: 'not_schedulable' }]);
    for (const id of ids.filter((id) => id !== deleted)) expect((await getTask(h, user, id)).status).toBe('scheduled');
  });

  it("a routine's placement run whose occurrence was deleted first places the others and ends", async () => {
    h.clock.set('2026-11-23T06:00:00Z');
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    // auto_schedule off: the test sends the placement request itself, after deleting one occurrence.
    const series = await createTask(h, user, {
      title: 'Inbox zero',
      duration_min: 20,
      recurrence: { rule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR', horizon_days: 3, auto_schedule: false },
    });
    const listed = await h.task.call(
      user,
      'GET',
      `/service/tasks/${series.id}/occurrences?from=2026-11-23&to=2026-11-30`,
    );
    const occurrences = (listed.json().items as { id: string }[]).map((o) => o.id);
    expect(occurrences).toHaveLength(4);
    const [gone, ...kept] = occurrences as [string, ...string[]];
    expect((await h.task.call(user, 'DELETE', `/service/tasks/${gone}`)).statusCode).toBe(204);
    const runId = uuidv7();
    const event = makeEvent(
      seriesEvents.occurrencesGenerated,
      { tenantId: user.tenantId, userId: user.userId, at: h.clock.now() },
      { run_id: runId, series_id: series.id, task_ids: occurrences },
    );
    await h.transport.publish(event);
    await h.transport.whenHandled?.(event.id);
    const run = await completed(user, runId);
    expect(run.progress).toEqual({ total: 4, done: 4 });
    expect(run.unscheduled).toEqual([{ task_id: gone, reason: 'not_schedulable' }]);
    for (const id of kept) expect((await getTask(h, user, id)).status).toBe('scheduled');
  });
});
