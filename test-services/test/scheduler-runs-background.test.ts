import { FakeLlmServer, fakeLlmEnv, type TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTask, getTask, type RunHarness, startRunHarness } from './run-harness.js';
import { knowUser, ok } from './scheduler-harness.js';

const LEASE_MS = 60_000;
let h: RunHarness;
let llm: FakeLlmServer;
let crashed = false;

beforeAll(async () => {
  llm = await FakeLlmServer.start();
  h = await startRunHarness(
    {
      SCHEDULER_RUN_BATCH_SIZE: '10',
      // Builtin runs in batches of 10 too: the process dies between two of them.
      SCHEDULER_RUN_SOLVER_BATCH_SIZE: '10',
      SCHEDULER_RUN_LEASE_MS: String(LEASE_MS),
      ...fakeLlmEnv(llm),
    },
    {
      runHooks: {
        // The process "dies" once, right after the second batch committed and before its slots were applied.
        afterBatch: async ({ done }) => {
          if (!crashed && done === 20) {
            crashed = true;
            throw new Error('simulated crash between batches');
          }
        },
      },
    },
  );
});
afterAll(async () => {
  await h?.close();
  await llm?.close();
});

async function runOf(user: TestUser, id: string) {
  return ok(await h.scheduler.call(user, 'GET', `/service/schedule/runs/${id}`));
}

/** Polls the run until `done` holds (the worker runs on its own; no timing is asserted). */
async function until(
  user: TestUser,
  id: string,
  done: (run: { status: string; progress: { done: number } }) => boolean,
) {
  for (let i = 0; i < 600; i++) {
    const run = await runOf(user, id);
    if (done(run)) return run;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`run ${id} never reached the expected state`);
}

describe('background runs', () => {
  it('queues more than 10 tasks (202 + Location); a run killed mid-way completes after restart, no task placed twice', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) ids.push((await createTask(h, user, { title: `task ${i}`, duration_min: 30 })).id);

    const res = await h.scheduler.call(user, 'POST', '/service/schedule', { task_ids: ids });
    expect(res.statusCode, res.body).toBe(202);
    const { run_id, status } = res.json();
    expect(status).toBe('queued');
    expect(res.headers.location).toBe(`/api/v1/service/schedule/runs/${run_id}`);

    // The first instance dies after two batches: progress and decisions of both are committed together.
    const halted = await until(user, run_id, () => crashed);
    expect(halted.status).toBe('running');
    const stuck = await until(user, run_id, (run) => run.progress.done === 20);
    expect(stuck.decisions).toHaveLength(20);
    expect(stuck.decisions.filter((d: { applied: boolean }) => !d.applied)).toHaveLength(10);
    await h.scheduler.service.stop();

    // A restarted instance takes the run once the dead one's lease expired and finishes it.
    h.clock.advance(LEASE_MS + 1_000);
    const restarted = await h.scheduler.spawn({ start: true });
    const done = await until(user, run_id, (run) => run.status === 'completed');
    await restarted.service.stop();

    expect(done.progress).toEqual({ total: 50, done: 50 });
    expect(done.error).toBeNull();
    const perTask = new Map<string, number>();
    for (const d of done.decisions as { task_id: string; applied: boolean }[]) {
      perTask.set(d.task_id, (perTask.get(d.task_id) ?? 0) + 1);
      expect(d.applied).toBe(true);
    }
    expect([...perTask.keys()].sort()).toEqual([...ids].sort());
    expect([...perTask.values()].every((n) => n === 1)).toBe(true);

    // Every task holds its decision's slot and no two slots overlap.
    const slots = done.decisions
      .map((d: { chosen_slot_start: string; chosen_slot_end: string }) => [d.chosen_slot_start, d.chosen_slot_end])
      .sort();
    for (let i = 1; i < slots.length; i++) expect(slots[i][0] >= slots[i - 1][1]).toBe(true);
    for (const d of done.decisions.slice(0, 25) as { task_id: string; chosen_slot_start: string }[]) {
      expect(await getTask(h, user, d.task_id)).toMatchObject({
        status: 'scheduled',
        chosen_slot_start: d.chosen_slot_start,
      });
    }
  });
});

describe('background language-model runs', () => {
  it('checks the hard cap between calls: once a call reaches it, the rest of the run falls back to the solver', async () => {
    const worker = await h.scheduler.spawn({ start: true });
    try {
      llm.reset();
      // The first call alone costs the whole hard cap of 0.01 USD (2,000 x 1 + 4,000 x 2 micro-USD); reported
      // counts are bounded by the call's budget, so the cap is lowered rather than the tokens raised.
      llm.enqueue({ kind: 'pick', pick: 'first', usage: { inputTokens: 2_000, outputTokens: 4_000 } });
      const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
      const admin = h.scheduler.tokens.user({ tenantId: user.tenantId, roles: ['admin'] });
      await ok(
        await h.scheduler.call(admin, 'PATCH', `/service/admin/quotas/${user.userId}`, {
          soft_cap_usd: 0.01,
          hard_cap_usd: 0.01,
        }),
      );
      const ids: string[] = [];
      for (let i = 0; i < 25; i++) ids.push((await createTask(h, user, { title: `model ${i}`, duration_min: 30 })).id);
      const res = await h.scheduler.call(user, 'POST', '/service/schedule', { task_ids: ids, provider: 'openai' });
      expect(res.statusCode, res.body).toBe(202);
      const run = await until(user, res.json().run_id, (r) => r.status === 'completed');
      expect(llm.requests).toHaveLength(1);
      expect(run).toMatchObject({ provider: 'openai', cost_usd: 0.01, progress: { total: 25, done: 25 } });
      const decisions = run.decisions as { source: string; rationale: string }[];
      expect(decisions).toHaveLength(25);
      // The first batch (10 tasks) went to the model; the other two batches were refused before calling.
      expect(decisions.filter((d) => d.source === 'agent').length).toBeGreaterThan(0);
      const capped = decisions.filter((d) => d.rationale.includes('hard cap'));
      expect(capped).toHaveLength(15);
      for (const d of capped) expect(d.source).toBe('solver');
    } finally {
      await worker.service.stop();
    }
  }, 180_000);
});
