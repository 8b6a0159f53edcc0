import { makeEvent, seriesEvents } from '@routinely/events';
import type { TestUser } from '@routinely/testkit';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTask, type RunHarness, startRunHarness } from './run-harness.js';
import { knowUser, ok } from './scheduler-harness.js';

// One user's many routine placements made another user's small run wait for all of them (the
// queue was taken oldest first). The run worker takes owners in turn.

let h: RunHarness;
beforeAll(async () => {
  h = await startRunHarness();
});
afterAll(() => h?.close());

/** Queues a routine placement run of `user` for `taskIds`, as the task service's fill asks for one. */
async function requestPlacement(user: TestUser, taskIds: string[]) {
  const runId = uuidv7();
  const event = makeEvent(
    seriesEvents.occurrencesGenerated,
    { tenantId: user.tenantId, userId: user.userId, at: h.clock.now() },
    { run_id: runId, series_id: uuidv7(), task_ids: taskIds },
  );
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
    for (let i = 0; i < 40; i++) busyRuns.push(await requestPlacement(busy, many));
    const small = await requestPlacement(other, few);

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
