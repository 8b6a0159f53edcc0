import type { TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunHarness, startRunHarness } from './run-harness.js';
import { call, ok, recordCall } from './scheduler-harness.js';

// The dashboard's spend and the health page's model registry are the scheduler's figures, shown by the task
// service from its events (ADR 056): the task service never calls the scheduler.
let h: RunHarness;

beforeAll(async () => {
  h = await startRunHarness({
    OPENAI_API_KEY: 'sk-test-not-a-real-key',
    LLM_PRICES: JSON.stringify({ 'gpt-4o-mini': { input: 1, output: 2 } }),
  });
});
afterAll(async () => {
  await h?.close();
});

const taskGet = async (user: TestUser, path: string) => {
  const res = await h.task.call(user, 'GET', path);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

describe("the scheduler's figures on the task service's dashboard and health page", () => {
  it("shows today's spend in the settings timezone as the scheduler counted it", async () => {
    const user = h.scheduler.tokens.user();
    await ok(await call(h.scheduler, user, 'PATCH', '/service/settings/me', { timezone: 'Pacific/Kiritimati' }));
    await recordCall(h.scheduler, user, { inputTokens: 1_000_000, outputTokens: 500_000 });
    await recordCall(h.scheduler, user, { inputTokens: 1_000_000, outputTokens: 0 });
    const today = await ok(await call(h.scheduler, user, 'GET', '/service/llm/usage/today'));
    expect(today.total_usd).toBe(3);
    const summary = await vi.waitFor(
      async () => {
        const body = await taskGet(user, '/service/dashboard/summary');
        expect(body.llm_spend_today_usd).toBe(3);
        return body;
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(summary).toMatchObject({ date: today.date, timezone: 'Pacific/Kiritimati' });
    expect(summary.degraded).not.toContain('llm_spend_today_usd');
    // Another user of the tenant spent nothing.
    const other = h.scheduler.tokens.user({ tenantId: user.tenantId });
    expect((await taskGet(other, '/service/dashboard/summary')).llm_spend_today_usd).toBe(0);
  });

  it("lists the configured providers with the tenant's own last call of each", async () => {
    const admin = h.scheduler.tokens.user({ roles: ['admin'] });
    const registry = async (who: TestUser) => (await taskGet(who, '/service/admin/health')).components.model_registry;
    const configured = await vi.waitFor(
      async () => {
        const component = await registry(admin);
        expect(component.status).toBe('ok');
        return component;
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(configured.providers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'openai', available: true, last_outcome: null }),
        expect.objectContaining({ name: 'anthropic', available: false, last_outcome: null }),
        expect.objectContaining({ name: 'builtin', available: true }),
      ]),
    );

    h.clock.advance(1_000);
    await h.scheduler.service.domain.outcomes.report(admin.tenantId, 'openai', 'error', 'timeout');
    const failing = await vi.waitFor(
      async () => {
        const component = await registry(admin);
        expect(component.status).toBe('degraded');
        return component;
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(failing.providers.find((p: { name: string }) => p.name === 'openai')).toMatchObject({
      last_outcome: 'error',
      last_error: 'timeout',
      last_call_at: h.clock.now().toISOString(),
    });
    // Another tenant's administrator does not see that call.
    const elsewhere = await registry(h.scheduler.tokens.user({ roles: ['admin'] }));
    expect(elsewhere.status).toBe('ok');
    expect(elsewhere.providers.find((p: { name: string }) => p.name === 'openai')).toMatchObject({
      last_outcome: null,
      last_call_at: null,
    });
  });
});
