import { FakeLlmServer, fakeLlmEnv, type TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, type Harness, knowUser, ok, recordCall, startHarness } from './harness.js';

let h: Harness;
let llm: FakeLlmServer;
beforeAll(async () => {
  llm = await FakeLlmServer.start();
  // OpenAI through the fake; Anthropic has no key (unavailable).
  h = await startHarness(fakeLlmEnv(llm));
});
afterAll(async () => {
  await h?.close();
  await llm?.close();
});
beforeEach(() => llm.reset());

const parse = (user: TestUser, body: Record<string, unknown>) => call(h, user, 'POST', '/service/tasks/parse', body);

/** A user whose settings timezone is Berlin (the clock stands at 2026-11-21T08:00Z, 09:00 there). */
async function berliner(): Promise<TestUser> {
  const user = await knowUser(h, h.tokens.user());
  await ok(await call(h, user, 'PATCH', '/service/settings/me', { timezone: 'Europe/Berlin' }));
  return user;
}

const usageToday = async (user: TestUser) => ok(await call(h, user, 'GET', '/service/llm/usage/today'));

const MODEL_FIELDS = {
  title: 'Gym',
  duration_min: 60,
  priority: 2,
  deadline_at: null,
  earliest_start_at: null,
  tags: ['#health'],
  recurrence: { rule: 'FREQ=WEEKLY;BYDAY=MO,TH', window: { start: '07:00', end: '08:00' }, starts_on: null },
};

describe('capture from text', () => {
  it('reads with the builtin parser in the settings timezone, free and without a model call', async () => {
    const user = await berliner();
    const answer = await ok(await parse(user, { text: 'Call mom tomorrow 9am for 15 min #family p1' }));
    expect(answer).toEqual({
      fields: {
        title: 'Call mom',
        duration_min: 15,
        priority: 1,
        tags: ['family'],
        earliest_start_at: '2026-11-22T08:00:00.000Z',
      },
      provider: 'builtin',
      model: null,
      cost_usd: 0,
    });
    expect(llm.requests).toEqual([]);
    expect((await usageToday(user)).calls).toBe(0);
  });

  it('reads with the model in one call, its fields checked, its cost in the ledger', async () => {
    const user = await berliner();
    llm.enqueue({ kind: 'answer', document: MODEL_FIELDS, usage: { inputTokens: 1000, outputTokens: 500 } });
    const answer = await ok(
      await parse(user, { text: 'Gym every Monday and Thursday 7am for 1h #health p2', provider: 'openai' }),
    );
    expect(answer).toEqual({
      fields: {
        title: 'Gym',
        duration_min: 60,
        priority: 2,
        tags: ['health'],
        recurrence: { rule: 'FREQ=WEEKLY;BYDAY=MO,TH', window: { start: '07:00', end: '08:00' } },
      },
      provider: 'openai',
      model: 'test-model',
      // 1,000 input tokens at $1/M and 500 output at $2/M.
      cost_usd: 0.002,
    });
    expect(llm.requests).toHaveLength(1);
    const sent = FakeLlmServer.lastUserDocument(llm.requests[0] as never) as Record<string, unknown>;
    expect(sent).toMatchObject({
      text: 'Gym every Monday and Thursday 7am for 1h #health p2',
      timezone: 'Europe/Berlin',
      now: '2026-11-21T09:00+01:00',
    });
    expect(await usageToday(user)).toMatchObject({
      calls: 1,
      input_tokens: 1000,
      output_tokens: 500,
      total_usd: 0.002,
      providers: [{ provider: 'openai', model: 'test-model', calls: 1, cost_usd: 0.002 }],
    });
  });

  it("uses the user's default provider when the request names none", async () => {
    const user = await berliner();
    await ok(await call(h, user, 'PATCH', '/service/settings/me', { llm_provider_default: 'openai' }));
    llm.enqueue({ kind: 'answer', document: { ...MODEL_FIELDS, recurrence: null } });
    const answer = await ok(await parse(user, { text: 'Gym for 1h #health p2' }));
    expect(answer).toMatchObject({ provider: 'openai', model: 'test-model', fields: { title: 'Gym' } });
    expect(answer.cost_usd).toBeGreaterThan(0);
    const builtin = await ok(await parse(user, { text: 'Gym for 1h', provider: 'builtin' }));
    expect(builtin).toMatchObject({ provider: 'builtin', cost_usd: 0, fields: { title: 'Gym', duration_min: 60 } });
    expect(llm.requests).toHaveLength(1);
  });

  it('falls back to the builtin parser on an answer that does not fit, still billing its tokens', async () => {
    const user = await berliner();
    const usage = { inputTokens: 2000, outputTokens: 1000 };
    llm.enqueue(
      { kind: 'non_json', usage },
      {
        kind: 'answer',
        document: { ...MODEL_FIELDS, recurrence: { rule: 'FREQ=HOURLY', window: null, starts_on: null } },
        usage,
      },
      { kind: 'answer', document: { ...MODEL_FIELDS, priority: 9 }, usage },
    );
    const text = 'Call mom tomorrow 9am for 15 min';
    const builtinFields = {
      title: 'Call mom',
      duration_min: 15,
      earliest_start_at: '2026-11-22T08:00:00.000Z',
    };
    for (let i = 0; i < 3; i += 1) {
      const answer = await ok(await parse(user, { text, provider: 'openai' }));
      // 2,000 input tokens at $1/M and 1,000 output at $2/M.
      expect(answer).toEqual({ fields: builtinFields, provider: 'builtin', model: null, cost_usd: 0.004 });
    }
    expect(llm.requests).toHaveLength(3);
    expect(await usageToday(user)).toMatchObject({
      calls: 3,
      input_tokens: 6000,
      output_tokens: 3000,
      total_usd: 0.012,
    });
  });

  it('refuses a model answer holding what POST /tasks refuses (NUL, half a surrogate pair, year 10000, a routine starting years ago)', async () => {
    const user = await berliner();
    const usage = { inputTokens: 1000, outputTokens: 500 };
    const refused = [
      { ...MODEL_FIELDS, title: 'Gym\u0000' },
      { ...MODEL_FIELDS, title: 'Gym \ud83c' },
      { ...MODEL_FIELDS, tags: ['he\u0000alth'] },
      // A valid instant whose UTC reading is in year 10000.
      { ...MODEL_FIELDS, recurrence: null, deadline_at: '9999-12-31T23:00:00-05:00' },
      { ...MODEL_FIELDS, recurrence: { ...MODEL_FIELDS.recurrence, starts_on: '2020-01-06' } },
    ];
    llm.enqueue(...refused.map((document) => ({ kind: 'answer' as const, document, usage })));
    for (const document of refused) {
      const answer = await ok(await parse(user, { text: 'Gym for 1h', provider: 'openai' }));
      expect(answer, JSON.stringify(document)).toEqual({
        fields: { title: 'Gym', duration_min: 60 },
        provider: 'builtin',
        model: null,
        cost_usd: 0.002,
      });
    }
    expect(llm.requests).toHaveLength(refused.length);
  });

  it('falls back to the builtin parser for free when the provider gives no answer', async () => {
    const user = await berliner();
    llm.enqueue({ kind: 'error', status: 500 }, { kind: 'error', status: 500 });
    const answer = await ok(await parse(user, { text: 'Pay rent p1', provider: 'openai' }));
    expect(answer).toEqual({
      fields: { title: 'Pay rent', priority: 1 },
      provider: 'builtin',
      model: null,
      cost_usd: 0,
    });
    expect((await usageToday(user)).calls).toBe(0);
  });

  it('answers an unavailable provider 422 provider_unavailable, as a run does', async () => {
    const user = await berliner();
    const res = await parse(user, { text: 'Pay rent', provider: 'anthropic' });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toMatchObject({ code: 'provider_unavailable', errors: [{ loc: ['body', 'provider'] }] });
    expect(llm.requests).toEqual([]);
  });

  it("refuses a model at the hard cap with the runs' 429 quota_exceeded; builtin still reads", async () => {
    const user = await berliner();
    // 20 USD, the default hard cap, at $1 per million input tokens of test-model.
    await recordCall(h, user, { model: 'test-model', inputTokens: 20_000_000, outputTokens: 0 });
    const res = await parse(user, { text: 'Pay rent', provider: 'openai' });
    expect(res.statusCode, res.body).toBe(429);
    expect(res.json().code).toBe('quota_exceeded');
    expect(llm.requests).toEqual([]);
    expect(await ok(await parse(user, { text: 'Pay rent', provider: 'builtin' }))).toMatchObject({
      provider: 'builtin',
      fields: { title: 'Pay rent' },
    });
  });
});
