import { makeEvent, seriesEvents, taskImportEvents } from '@routinely/events';
import type { TestUser } from '@routinely/testkit';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTask, type RunHarness, startRunHarness } from './run-harness.js';
import { knowUser, ok } from './scheduler-harness.js';

// One user's many routine placements made another user's small run wait for all of them (the
// queue was taken oldest first). The run worker takes owners in turn. The busy user's runs are an import's
// placement requests: a routine's requests join the run of the owner's that waits (routine-run-joins.test.ts), so
// forty of them would be one run.

let h: RunHarness;
beforeAll(async () => {
  h = await startRunHarness();
});
afterAll(() => h?.close());

/**
 * Queues a placement run of `user` for `taskIds`, as the task service asks for one: an import's (its own run each)
 * or a routine fill's.
 */
async function requestPlacement(user: TestUser, taskIds: string[], by: 'import' | 'routine') {
  const runId = uuidv7();
  const owner = { tenantId: user.tenantId, userId: user.userId, at: h.clock.now() };
  const event =
    by === 'import'
      ? makeEvent(taskImportEvents.scheduleRequested, owner, { run_id: runId, task_ids: taskIds })
      : makeEvent(seriesEvents.occurrencesGenerated, owner, { run_id: runId, series_id: uuidv7(), task_ids: taskIds });
  await h.transport.publish(event);
  await h.transport.whenHandled?.(event.id);
  return runId;
}

describe('the run queue', () => {
  it("serves owners in turn: one user's 40 queued runs do not hold back another user's small run", async () => {
    h.clock.set('2026-11-23T06:00:00Z');
    const busy = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const other = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const many: string[] = [];
    for (let i = 0; i < 12; i++) many.push((await createTask(h, busy, { title: `chore ${i}`, duration_min: 20 })).id);
    const few = [(await createTask(h, other, { title: 'call the bank', duration_min: 15 })).id];

    const busyRuns: string[] = [];
    for (let i = 0; i < 40; i++) busyRuns.push(await requestPlacement(busy, many, 'import'));
    const small = await requestPlacement(other, few, 'routine');

    await vi.waitFor(
      async () => {
        const run = await ok(await h.scheduler.call(other, 'GET', `/service/schedule/runs/${small}`));
        expect(run.status).toBe('completed');
      },
      { timeout: 60_000, interval: 50 },
    );
    let unfinished = 0;
    for (const id of busyRuns) {
      const run = await ok(await h.scheduler.call(busy, 'GET', `/service/schedule/runs/${id}`));
      if (run.status !== 'completed') unfinished += 1;
    }
    // Oldest first, the small run came after all 40; in turn, it came after a few of them.
    expect(unfinished).toBeGreaterThanOrEqual(20);
  }, 120_000);
});
