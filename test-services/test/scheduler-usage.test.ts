import { metricsRegistry } from '@routinely/platform';
import type { TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunHarness, startRunHarness } from './run-harness.js';
import { call, type Harness, knowUser, ok, recordCall } from './scheduler-harness.js';

// With the task service, which owns the bulk-import limits `/quota/me` and `/admin/quotas` show.
let run: RunHarness;
let h: Harness;
beforeAll(async () => {
  run = await startRunHarness({
    OPENAI_API_KEY: 'sk-test-not-a-real-key',
    OPENAI_MODEL: 'gpt-4o-mini',
    // One dollar per million input tokens, two per million output tokens: easy sums.
    LLM_PRICES: JSON.stringify({ 'test-model': { input: 1, output: 2 } }),
  });
  h = run.scheduler;
});
afterAll(() => run?.close());

const setZone = async (user: TestUser, timezone: string) =>
  ok(await call(h, user, 'PATCH', '/service/settings/me', { timezone }));

/** One call of `test-model` costing `usd` (input tokens only). */
const spend = (user: TestUser, usd: number) =>
  recordCall(h, user, { model: 'test-model', inputTokens: Math.round(usd * 1_000_000), outputTokens: 0 });

const softEvents = async (user: TestUser) => {
  const result = (await h.orm.em
    .getKnex()
    // Ids are uuidv7: their order is the order the events were written.
    .raw(
      `select payload from outbox where subject = 'scheduler.quota.soft_breached' and payload->>'user_id' = ? order by id`,
      [user.userId],
    )) as unknown as { rows: { payload: { data: Record<string, unknown> } }[] };
  return result.rows.map((r) => r.payload.data);
};

describe('providers', () => {
  it('lists builtin, openai and anthropic with their model and availability (a key set), never a key', async () => {
    const res = await call(h, h.tokens.user(), 'GET', '/service/llm/providers');
    expect(await ok(res)).toEqual([
      { name: 'builtin', model: 'solver', available: true },
      { name: 'openai', model: 'gpt-4o-mini', available: true },
      { name: 'anthropic', model: 'claude-haiku-4-5', available: false },
    ]);
    expect(res.body).not.toContain('sk-test');
  });

  it('prices calls from the built-in table, LLM_PRICES over it, builtin for free', () => {
    const { providers } = h.service.domain;
    expect(providers.costUsd('gpt-4o-mini', { inputTokens: 1_000_000, outputTokens: 1_000_000 })).toBe(0.75);
    expect(providers.costUsd('test-model', { inputTokens: 1000, outputTokens: 500 })).toBe(0.002);
    expect(providers.costUsd('solver', { inputTokens: 1_000_000, outputTokens: 1_000_000 })).toBe(0);
  });
});

describe('usage ledger and quota', () => {
  it('reports today, the cost status and the quota of a user without spend', async () => {
    const user = h.tokens.user();
    expect(await ok(await call(h, user, 'GET', '/service/schedule/cost/me'))).toEqual({
      date: '2026-11-21',
      daily_usd: 0,
      soft: 5,
      hard: 20,
      allowed: true,
      breached: 'none',
    });
    expect(await ok(await call(h, user, 'GET', '/service/quota/me'))).toEqual({
      soft_cap_usd: 5,
      hard_cap_usd: 20,
      daily_usd: 0,
      soft_breached: false,
      hard_breached: false,
      allowed: true,
      bulk_import: { per_hour: 5, per_day: 20, used_hour: 0, used_day: 0 },
    });
    expect(await ok(await call(h, user, 'GET', '/service/llm/usage/today'))).toEqual({
      date: '2026-11-21',
      timezone: 'UTC',
      total_usd: 0,
      calls: 0,
      input_tokens: 0,
      output_tokens: 0,
      providers: [],
    });
  });

  it('sums calls per provider and model for today', async () => {
    const user = h.tokens.user();
    await recordCall(h, user, { model: 'test-model', inputTokens: 1000, outputTokens: 500 });
    await recordCall(h, user, { model: 'test-model', inputTokens: 3000, outputTokens: 0 });
    await recordCall(h, user, {
      provider: 'anthropic',
      model: 'claude-3-5-haiku-latest',
      inputTokens: 1_000_000,
      outputTokens: 0,
    });
    const today = await ok(await call(h, user, 'GET', '/service/llm/usage/today'));
    expect(today).toMatchObject({ calls: 3, input_tokens: 1_004_000, output_tokens: 500, total_usd: 0.805 });
    expect(today.providers).toEqual([
      {
        provider: 'anthropic',
        model: 'claude-3-5-haiku-latest',
        calls: 1,
        input_tokens: 1_000_000,
        output_tokens: 0,
        cost_usd: 0.8,
      },
      { provider: 'openai', model: 'test-model', calls: 2, input_tokens: 4000, output_tokens: 500, cost_usd: 0.005 },
    ]);
  });

  it('counts recorded spend and tokens in the metrics', async () => {
    const value = async (name: string, labels: Record<string, string>) => {
      const metric = metricsRegistry.getSingleMetric(name);
      const values = (await metric?.get())?.values ?? [];
      return values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value ?? 0;
    };
    const before = await value('routinely_llm_spend_usd_total', { provider: 'openai', model: 'test-model' });
    const tokens = await value('routinely_llm_tokens_total', { provider: 'openai', direction: 'output' });
    await recordCall(h, h.tokens.user(), { model: 'test-model', inputTokens: 0, outputTokens: 1_000_000 });
    expect(await value('routinely_llm_spend_usd_total', { provider: 'openai', model: 'test-model' })).toBeCloseTo(
      before + 2,
      6,
    );
    expect(await value('routinely_llm_tokens_total', { provider: 'openai', direction: 'output' })).toBe(
      tokens + 1_000_000,
    );
  });

  it('never loses an increment when many recordings of one user race', async () => {
    const user = h.tokens.user();
    await setZone(user, 'Europe/Berlin');
    await Promise.all(Array.from({ length: 20 }, () => spend(user, 0.1)));
    const today = await ok(await call(h, user, 'GET', '/service/llm/usage/today'));
    expect(today).toMatchObject({ calls: 20, input_tokens: 2_000_000, total_usd: 2 });
    const ledger = (await h.orm.em
      .getKnex()
      .raw('select count(*)::int as n, sum(cost_usd)::float8 as usd from usage_ledger where user_id = ?', [
        user.userId,
      ])) as unknown as { rows: { n: number; usd: number }[] };
    expect(ledger.rows[0]).toEqual({ n: 20, usd: 2 });
  });

  it("rolls 'today' over at the user's local midnight, not UTC's", async () => {
    const user = h.tokens.user();
    await setZone(user, 'America/New_York');
    // 23:30 in New York on 2026-11-21 is 04:30 UTC on the 22nd.
    h.clock.set('2026-11-22T04:30:00.000Z');
    await spend(user, 1);
    let status = await ok(await call(h, user, 'GET', '/service/schedule/cost/me'));
    expect(status).toMatchObject({ date: '2026-11-21', daily_usd: 1 });
    h.clock.set('2026-11-22T04:59:59.000Z');
    expect((await ok(await call(h, user, 'GET', '/service/schedule/cost/me'))).daily_usd).toBe(1);
    h.clock.set('2026-11-22T05:00:00.000Z');
    status = await ok(await call(h, user, 'GET', '/service/schedule/cost/me'));
    expect(status).toMatchObject({ date: '2026-11-22', daily_usd: 0 });
    await spend(user, 0.5);
    const month = await ok(await call(h, user, 'GET', '/service/llm/usage/monthly?month=2026-11'));
    expect(month.month).toBe('2026-11');
    expect(month.days).toHaveLength(30);
    expect(month.days[0]).toEqual({ date: '2026-11-01', calls: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 });
    expect(month.days.filter((d: { calls: number }) => d.calls > 0)).toEqual([
      { date: '2026-11-21', calls: 1, input_tokens: 1_000_000, output_tokens: 0, cost_usd: 1 },
      { date: '2026-11-22', calls: 1, input_tokens: 500_000, output_tokens: 0, cost_usd: 0.5 },
    ]);
    expect(month.total_usd).toBe(1.5);
    // Default month: this month in the user's zone; February of a leap year lists 29 days.
    expect((await ok(await call(h, user, 'GET', '/service/llm/usage/monthly'))).month).toBe('2026-11');
    expect((await ok(await call(h, user, 'GET', '/service/llm/usage/monthly?month=2028-02'))).days).toHaveLength(29);
    h.clock.set('2026-11-21T08:00:00.000Z');
  });

  it.each(['2026-1', '26-11', '2026-11-01', 'november'])('monthly refuses month=%s with 422', async (month) => {
    const res = await call(h, h.tokens.user(), 'GET', `/service/llm/usage/monthly?month=${month}`);
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].loc).toEqual(['query', 'month']);
  });

  it('flags the soft and hard caps and emits one soft-breach event per user and local day', async () => {
    const user = h.tokens.user();
    await spend(user, 4.9);
    expect(await softEvents(user)).toEqual([]);
    await spend(user, 0.1);
    await spend(user, 1);
    expect(await ok(await call(h, user, 'GET', '/service/schedule/cost/me'))).toMatchObject({
      daily_usd: 6,
      allowed: true,
      breached: 'soft',
    });
    const events = await softEvents(user);
    expect(events).toEqual([
      expect.objectContaining({
        user_id: user.userId,
        date: '2026-11-21',
        daily_usd: 5,
        soft_cap_usd: 5,
        hard_cap_usd: 20,
      }),
    ]);
    await spend(user, 14);
    expect(await ok(await call(h, user, 'GET', '/service/quota/me'))).toMatchObject({
      daily_usd: 20,
      soft_breached: true,
      hard_breached: true,
      allowed: false,
    });
    expect((await ok(await call(h, user, 'GET', '/service/schedule/cost/me'))).breached).toBe('hard');
    // The next local day gets its own bell.
    h.clock.advance(24 * 3_600_000);
    await spend(user, 5);
    expect((await softEvents(user)).map((e) => e.date)).toEqual(['2026-11-21', '2026-11-22']);
    h.clock.set('2026-11-21T08:00:00.000Z');
  });
});

describe('admin quotas', () => {
  it('pages every user of the tenant with caps, import limits and today spend', async () => {
    const admin = await knowUser(h, h.tokens.user({ roles: ['admin'] }), { email: 'a-admin@example.test' });
    const users = [];
    for (const name of ['b', 'c', 'd']) {
      users.push(await knowUser(h, h.tokens.user({ tenantId: admin.tenantId }), { email: `${name}@example.test` }));
    }
    await knowUser(h, h.tokens.user(), { email: 'stranger@example.test' });
    await spend(users[0] as TestUser, 6);
    const page = await ok(await call(h, admin, 'GET', '/service/admin/quotas?limit=2&offset=1'));
    expect(page).toMatchObject({ total: 4, limit: 2, offset: 1 });
    expect(page.items).toEqual([
      {
        user_id: users[0]?.userId,
        email: 'b@example.test',
        soft_cap_usd: 5,
        hard_cap_usd: 20,
        bulk_import_per_hour: 5,
        bulk_import_per_day: 20,
        daily_usd: 6,
        soft_breached: true,
        hard_breached: false,
        updated_at: null,
      },
      expect.objectContaining({ email: 'c@example.test', daily_usd: 0, soft_breached: false }),
    ]);
    const all = await ok(await call(h, admin, 'GET', '/service/admin/quotas'));
    expect(all.items.map((r: { email: string }) => r.email)).toEqual([
      'a-admin@example.test',
      'b@example.test',
      'c@example.test',
      'd@example.test',
    ]);
    expect(all.limit).toBe(50);
    expect((await call(h, admin, 'GET', '/service/admin/quotas?limit=500')).statusCode).toBe(200);
  });

  it('PATCH changes only the given fields; soft above hard is 422 naming soft_cap_usd', async () => {
    const admin = h.tokens.user({ roles: ['admin'] });
    const user = await knowUser(h, h.tokens.user({ tenantId: admin.tenantId }));
    const path = `/service/admin/quotas/${user.userId}`;
    const row = await ok(await call(h, admin, 'PATCH', path, { hard_cap_usd: 50, bulk_import_per_hour: 1 }));
    expect(row).toMatchObject({ soft_cap_usd: 5, hard_cap_usd: 50, bulk_import_per_hour: 1, bulk_import_per_day: 20 });
    expect(row.updated_at).toBe('2026-11-21T08:00:00.000Z');
    expect(await ok(await call(h, admin, 'GET', path))).toEqual(row);
    expect((await ok(await call(h, user, 'GET', '/service/quota/me'))).hard_cap_usd).toBe(50);

    const soft = await call(h, admin, 'PATCH', path, { soft_cap_usd: 51 });
    expect(soft.statusCode).toBe(422);
    expect(soft.json().errors[0].loc).toEqual(['body', 'soft_cap_usd']);
    const both = await call(h, admin, 'PATCH', path, { soft_cap_usd: 10, hard_cap_usd: 9 });
    expect(both.statusCode).toBe(422);
    expect(both.json().errors[0].loc).toEqual(['body', 'soft_cap_usd']);
    // Equal caps are allowed.
    expect((await ok(await call(h, admin, 'PATCH', path, { soft_cap_usd: 50 }))).soft_cap_usd).toBe(50);
  });

  it.each([
    [{ soft_cap_usd: -0.01 }, 'soft_cap_usd'],
    [{ hard_cap_usd: -1 }, 'hard_cap_usd'],
    [{ bulk_import_per_hour: -1 }, 'bulk_import_per_hour'],
    [{ bulk_import_per_day: 10_001 }, 'bulk_import_per_day'],
    [{ bulk_import_per_day: 1.5 }, 'bulk_import_per_day'],
  ])('PATCH refuses %o with 422 naming %s', async (body, field) => {
    const admin = h.tokens.user({ roles: ['admin'] });
    const user = await knowUser(h, h.tokens.user({ tenantId: admin.tenantId }));
    const res = await call(h, admin, 'PATCH', `/service/admin/quotas/${user.userId}`, body);
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].loc).toEqual(['body', field]);
  });

  it('answers 404 for a user of another tenant and for a user never seen', async () => {
    const admin = h.tokens.user({ roles: ['admin'] });
    const stranger = await knowUser(h, h.tokens.user());
    for (const id of [stranger.userId, h.tokens.user({ tenantId: admin.tenantId }).userId]) {
      expect((await call(h, admin, 'PATCH', `/service/admin/quotas/${id}`, { soft_cap_usd: 1 })).statusCode).toBe(404);
      expect((await call(h, admin, 'GET', `/service/admin/quotas/${id}`)).statusCode).toBe(404);
    }
  });
});
