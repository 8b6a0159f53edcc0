import { FAKE_LLM_PRICE, FakeLlmServer, fakeLlmEnv, type TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTask, getTask, type RunHarness, startRunHarness } from './run-harness.js';
import { knowUser, ok, recordCall } from './scheduler-harness.js';

const MAX_OUTPUT_TOKENS = 4_096;

let h: RunHarness;
let llm: FakeLlmServer;

beforeAll(async () => {
  llm = await FakeLlmServer.start();
  h = await startRunHarness({
    ...fakeLlmEnv(llm),
    OPENAI_MAX_TOKENS: String(MAX_OUTPUT_TOKENS),
  });
});
afterAll(async () => {
  await h?.close();
  await llm?.close();
});

async function withHardCap(user: TestUser, hardCapUsd: number) {
  const admin = h.scheduler.tokens.user({ tenantId: user.tenantId, roles: ['admin'] });
  await ok(
    await h.scheduler.call(admin, 'PATCH', `/service/admin/quotas/${user.userId}`, {
      soft_cap_usd: hardCapUsd,
      hard_cap_usd: hardCapUsd,
    }),
  );
}

/** The most one recorded request could have cost: its bytes and framing as input, the output bound as output. */
function callEstimateUsd(body: unknown): number {
  const input = Buffer.byteLength(JSON.stringify(body)) + 1_000;
  return (input * FAKE_LLM_PRICE.input + MAX_OUTPUT_TOKENS * FAKE_LLM_PRICE.output) / 1_000_000;
}

describe('the hard cap under concurrency', () => {
  it('36 parallel model runs at $0.08 of a $0.10 cap end the day at no more than the cap plus one call', async () => {
    llm.reset();
    // Slow answers, each costing $0.01 (5,000 input + 2,500 output tokens): a cap that only looks at the
    // recorded spend lets every one of them through.
    llm.setDefault({ kind: 'pick', pick: 'first', delayMs: 100, usage: { inputTokens: 5_000, outputTokens: 2_500 } });
    try {
      const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
      await withHardCap(user, 0.1);
      await recordCall(h.scheduler, user, {
        provider: 'openai',
        model: 'test-model',
        inputTokens: 80_000,
        outputTokens: 0,
      });
      const tasks = await Promise.all(
        Array.from({ length: 36 }, (_, i) => createTask(h, user, { title: `spend ${i}`, duration_min: 15 })),
      );
      const answers = await Promise.all(
        tasks.map((t) => h.scheduler.call(user, 'POST', '/service/schedule', { task_ids: [t.id], provider: 'openai' })),
      );
      for (const res of answers) {
        expect([200, 429], res.body).toContain(res.statusCode);
        if (res.statusCode === 429) expect(res.json().code).toBe('quota_exceeded');
      }
      const spent = await ok(await h.scheduler.call(user, 'GET', '/service/llm/usage/today'));
      const oneCall = Math.max(0, ...llm.requests.map((r) => callEstimateUsd(r.body)));
      expect(llm.requests.length).toBeGreaterThan(0);
      expect(spent.total_usd).toBeLessThanOrEqual(0.1 + oneCall);
      // Runs that came in under the cap but found it taken were placed by the solver, saying why.
      for (const res of answers.filter((r) => r.statusCode === 200)) {
        const [decision] = res.json().decisions;
        if (decision.source === 'solver') expect(decision.rationale).toContain('hard cap');
      }
    } finally {
      llm.setDefault({ kind: 'pick', pick: 'first' });
    }
  }, 120_000);
});

/** Every pair of the user's placed tasks is disjoint. */
async function expectNoOverlap(user: TestUser, ids: readonly string[]) {
  const slots = (await Promise.all(ids.map((id) => getTask(h, user, id))))
    .filter((t) => t.chosen_slot_start && t.chosen_slot_end)
    .map((t) => [Date.parse(t.chosen_slot_start as string), Date.parse(t.chosen_slot_end as string)] as const)
    .sort((a, b) => a[0] - b[0]);
  expect(slots.length).toBeGreaterThan(1);
  const overlapping = slots.filter((s, i) => i > 0 && s[0] < (slots[i - 1] as readonly [number, number])[1]);
  expect(overlapping).toEqual([]);
}

describe("one user's placements never overlap", () => {
  it.each(['builtin', 'openai'] as const)(
    '20 parallel single-task %s runs leave no two tasks overlapping',
    async (provider) => {
      llm.reset();
      llm.setDefault({ kind: 'pick', pick: 'first', delayMs: 20 });
      try {
        const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
        const tasks = await Promise.all(
          Array.from({ length: 20 }, (_, i) => createTask(h, user, { title: `parallel ${i}`, duration_min: 30 })),
        );
        const answers = await Promise.all(
          tasks.map((t) => h.scheduler.call(user, 'POST', '/service/schedule', { task_ids: [t.id], provider })),
        );
        for (const res of answers) expect(res.statusCode, res.body).toBe(200);
        await expectNoOverlap(
          user,
          tasks.map((t) => t.id),
        );
      } finally {
        llm.setDefault({ kind: 'pick', pick: 'first' });
      }
    },
    120_000,
  );
});
