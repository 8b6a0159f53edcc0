import { type AddressInfo, createServer } from 'node:net';
import { FakeLlmServer, type RecordedLlmRequest } from '@routinely/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AnthropicAdapter,
  CHOOSE_SLOTS_JSON_SCHEMA,
  costUsd,
  type ModelAdapter,
  ModelCallError,
  matchPicks,
  OpenAiAdapter,
  ProviderRegistry,
  parseLlmConfig,
  priceOf,
  SYSTEM_PROMPT,
} from '../src/index.js';
import { REQUEST } from './fixtures.js';

let fake: FakeLlmServer;
beforeAll(async () => {
  fake = await FakeLlmServer.start({ apiKey: 'sk-test-adapter' });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

const TIMEOUT = { timeoutMs: 10_000 };

const providers: { name: 'openai' | 'anthropic'; make: (key?: string) => ModelAdapter }[] = [
  {
    name: 'openai',
    make: (key = 'sk-test-adapter') =>
      new OpenAiAdapter({ apiKey: key, baseURL: fake.openaiBaseUrl, model: 'gpt-4.1-mini', maxTokens: 4096 }),
  },
  {
    name: 'anthropic',
    make: (key = 'sk-test-adapter') =>
      new AnthropicAdapter({ apiKey: key, baseURL: fake.anthropicBaseUrl, model: 'claude-haiku-4-5', maxTokens: 4096 }),
  },
];

async function failureOf(promise: Promise<unknown>): Promise<ModelCallError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ModelCallError);
    return error as ModelCallError;
  }
  throw new Error('expected the call to fail');
}

const body = (request: RecordedLlmRequest) => request.body as Record<string, unknown>;

describe.each(providers)('$name adapter against the fake API', ({ name, make }) => {
  it('sends the contract document and returns the picks with exact usage and cost', async () => {
    fake.enqueue({ kind: 'pick', pick: 'last', usage: { inputTokens: 1234, outputTokens: 56 } });
    const adapter = make();
    const { answer, usage } = await adapter.chooseSlots(REQUEST, TIMEOUT);

    expect(usage).toEqual({ inputTokens: 1234, outputTokens: 56 });
    const price = priceOf(adapter.model);
    // gpt-4.1-mini: 1234 x 0.4 + 56 x 1.6 = 583.2 micro-USD; claude-haiku-4-5: 1234 x 1 + 56 x 5 = 1514.
    expect(costUsd(usage, price ?? { input: Number.NaN, output: 0 })).toBe(name === 'openai' ? 0.000583 : 0.001514);
    expect(answer.choices.map((c) => [c.task_id, c.candidate])).toEqual(
      REQUEST.tasks.map((t) => [t.task_id, t.candidates.length - 1]),
    );
    const picks = matchPicks(REQUEST, answer);
    expect(picks.map((p) => p.status)).toEqual(['picked', 'picked', 'picked']);
    expect(picks[0]).toMatchObject({ candidate: REQUEST.tasks[0]?.candidates[2] });

    expect(fake.requests).toHaveLength(1);
    const [sent] = fake.requests as [RecordedLlmRequest];
    expect(FakeLlmServer.lastUserDocument(sent)).toEqual(REQUEST);
    expect(sent.headers['user-agent']).toBe('Routinely/1.0');
    expect(body(sent).model).toBe(adapter.model);
    if (name === 'openai') {
      expect(sent.path).toBe('/v1/chat/completions');
      expect(sent.headers.authorization).toBe('Bearer sk-test-adapter');
      expect(body(sent).messages).toEqual([
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: JSON.stringify(REQUEST) },
      ]);
      expect(body(sent).response_format).toEqual({
        type: 'json_schema',
        json_schema: { name: 'choose_slots', strict: true, schema: CHOOSE_SLOTS_JSON_SCHEMA },
      });
    } else {
      expect(sent.path).toBe('/v1/messages');
      // The SDK sends the key as a Bearer token (older ones used x-api-key); the API takes either.
      expect([sent.headers['x-api-key'], sent.headers.authorization]).toContain(
        sent.headers['x-api-key'] ? 'sk-test-adapter' : 'Bearer sk-test-adapter',
      );
      expect(sent.headers['anthropic-version']).toBeTruthy();
      expect(body(sent).system).toBe(SYSTEM_PROMPT);
      expect(body(sent).max_tokens).toBe(4096);
      expect(body(sent).tool_choice).toEqual({ type: 'tool', name: 'choose_slots' });
      expect(body(sent).tools).toEqual([
        { name: 'choose_slots', description: expect.any(String), input_schema: CHOOSE_SLOTS_JSON_SCHEMA },
      ]);
    }
  });

  it('reports the usage the API answered when none is scripted', async () => {
    const { usage } = await make().chooseSlots(REQUEST, TIMEOUT);
    const usageSent = fake.requests[0]?.usage;
    expect(usageSent?.inputTokens).toBeGreaterThan(0);
    expect(usage).toEqual(usageSent);
  });

  it('passes an invalid index and a missing pick on as per-task outcomes', async () => {
    fake.enqueue({ kind: 'invalid_index' }, { kind: 'missing_pick' });
    const adapter = make();
    const invalid = matchPicks(REQUEST, (await adapter.chooseSlots(REQUEST, TIMEOUT)).answer);
    expect(invalid.map((p) => p.status)).toEqual(['invalid_candidate', 'picked', 'picked']);
    const missing = matchPicks(REQUEST, (await adapter.chooseSlots(REQUEST, TIMEOUT)).answer);
    expect(missing.map((p) => p.status)).toEqual(['missing', 'picked', 'picked']);
  });

  it('turns a non-JSON or misshapen answer into invalid_answer carrying the tokens spent', async () => {
    fake.enqueue(
      { kind: 'non_json', usage: { inputTokens: 900, outputTokens: 20 } },
      { kind: 'wrong_shape', usage: { inputTokens: 901, outputTokens: 21 } },
    );
    const adapter = make();
    const nonJson = await failureOf(adapter.chooseSlots(REQUEST, TIMEOUT));
    expect(nonJson.failure).toBe('invalid_answer');
    expect(nonJson.usage).toEqual({ inputTokens: 900, outputTokens: 20 });
    const misshapen = await failureOf(adapter.chooseSlots(REQUEST, TIMEOUT));
    expect(misshapen.failure).toBe('invalid_answer');
    expect(misshapen.usage).toEqual({ inputTokens: 901, outputTokens: 21 });
    expect(fake.requests).toHaveLength(2);
  });

  it('retries a 500 once and succeeds, and gives server_error after the second', async () => {
    fake.enqueue({ kind: 'error', status: 500, retryAfter: '0' }, { kind: 'pick' });
    const { answer } = await make().chooseSlots(REQUEST, TIMEOUT);
    expect(answer.choices).toHaveLength(3);
    expect(fake.requests.map((r) => r.status)).toEqual([500, 200]);

    fake.reset();
    fake.enqueue({ kind: 'error', status: 503, retryAfter: '0' }, { kind: 'error', status: 500, retryAfter: '0' });
    const failure = await failureOf(make().chooseSlots(REQUEST, TIMEOUT));
    expect(failure.failure).toBe('server_error');
    expect(failure.status).toBe(500);
    expect(failure.usage).toBeUndefined();
    expect(fake.requests.map((r) => r.status)).toEqual([503, 500]);
  });

  it('waits what Retry-After says before retrying a 429, and gives rate_limited after the second', async () => {
    fake.enqueue({ kind: 'error', status: 429, retryAfter: '1' }, { kind: 'pick' });
    await make().chooseSlots(REQUEST, TIMEOUT);
    const [first, second] = fake.requests as [RecordedLlmRequest, RecordedLlmRequest];
    expect([first.status, second.status]).toEqual([429, 200]);
    // A lower bound only: the retry came no earlier than the one second the API asked for.
    expect(second.receivedAtMs - first.receivedAtMs).toBeGreaterThanOrEqual(950);

    fake.reset();
    fake.enqueue({ kind: 'error', status: 429, retryAfter: '0' }, { kind: 'error', status: 429, retryAfter: '0' });
    const failure = await failureOf(make().chooseSlots(REQUEST, TIMEOUT));
    expect(failure.failure).toBe('rate_limited');
    expect(failure.status).toBe(429);
    expect(fake.requests).toHaveLength(2);
  });

  it('gives timeout when the API hangs past the budget, and aborted when the caller cancels', async () => {
    fake.setDefault({ kind: 'hang' });
    try {
      const timedOut = await failureOf(make().chooseSlots(REQUEST, { timeoutMs: 300 }));
      expect(timedOut.failure).toBe('timeout');
      const controller = new AbortController();
      const pending = make().chooseSlots(REQUEST, { timeoutMs: 10_000, signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      expect((await failureOf(pending)).failure).toBe('aborted');
    } finally {
      fake.setDefault({ kind: 'pick', pick: 'first' });
    }
  });

  it('does not retry a refused key and never leaks it', async () => {
    const failure = await failureOf(make('sk-wrong-key-123').chooseSlots(REQUEST, TIMEOUT));
    // The requests made with this key: under load, the previous test's aborted request can reach the shared fake
    // after this test began (it once did, under CI), and it carries the other key.
    const seen = fake.requests
      .filter((r) => [r.headers.authorization, r.headers['x-api-key']].some((h) => h?.includes('sk-wrong-key-123')))
      .map((r) => `${r.status} ${r.path} ${String(r.behavior?.kind)}`);
    expect(failure.failure, `${failure.message} after ${seen.join(', ')}`).toBe('refused');
    expect(failure.status).toBe(401);
    expect(failure.message).not.toContain('sk-wrong-key-123');
    expect(seen).toEqual([`401 ${name === 'openai' ? '/v1/chat/completions' : '/v1/messages'} undefined`]);
  });

  it('gives network when the connection is reset without an answer', async () => {
    // Kept listening (a closed port could be taken by a parallel test run) but hangs up on every request.
    const resetter = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => resetter.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(resetter.address() as AddressInfo).port}`;
    try {
      const adapter =
        name === 'openai'
          ? new OpenAiAdapter({ apiKey: 'k', baseURL: `${url}/v1`, model: 'gpt-4.1-mini', maxTokens: 4096 })
          : new AnthropicAdapter({ apiKey: 'k', baseURL: url, model: 'claude-haiku-4-5', maxTokens: 1024 });
      expect((await failureOf(adapter.chooseSlots(REQUEST, TIMEOUT))).failure).toBe('network');
    } finally {
      await new Promise((resolve) => resetter.close(resolve));
    }
  });

  it('refuses a malformed request before calling the API', async () => {
    await expect(make().chooseSlots({ tasks: [] }, TIMEOUT)).rejects.toThrow(TypeError);
    expect(fake.requests).toHaveLength(0);
  });
});

describe.each(providers)("$name adapter: one JSON call of a caller's schema", ({ name, make }) => {
  const CALL = {
    name: 'record_fields',
    description: 'Record the fields.',
    system: 'Read the text.',
    user: JSON.stringify({ text: 'Gym for 1h' }),
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['title'],
      properties: { title: { type: ['string', 'null'] } },
    },
  };

  it("sends the call's schema and prompt, and answers the document unchecked with its usage", async () => {
    fake.enqueue({ kind: 'answer', document: { title: 'Gym' }, usage: { inputTokens: 40, outputTokens: 7 } });
    const adapter = make();
    expect(await adapter.callJson(CALL, TIMEOUT)).toEqual({
      document: { title: 'Gym' },
      usage: { inputTokens: 40, outputTokens: 7 },
    });
    const sent = body(fake.requests[0] as RecordedLlmRequest);
    if (name === 'openai')
      expect(sent.response_format).toEqual({
        type: 'json_schema',
        json_schema: { name: 'record_fields', strict: true, schema: CALL.schema },
      });
    else expect(sent).toMatchObject({ system: 'Read the text.', tool_choice: { type: 'tool', name: 'record_fields' } });
    expect(FakeLlmServer.lastUserDocument(fake.requests[0] as RecordedLlmRequest)).toEqual({ text: 'Gym for 1h' });
    // The reservation's bound: every byte of what was sent may be a token, and the answer its output bound.
    expect(adapter.budgetOf(CALL).inputTokens).toBeGreaterThanOrEqual(Buffer.byteLength(JSON.stringify(sent)));
    expect(adapter.budgetOf(CALL).outputTokens).toBe(4096);
  });

  it('fails invalid_answer, carrying the billed tokens, on an answer that is not JSON', async () => {
    fake.enqueue({ kind: 'non_json', usage: { inputTokens: 40, outputTokens: 9 } });
    const failure = await failureOf(make().callJson(CALL, TIMEOUT));
    expect(failure.failure).toBe('invalid_answer');
    expect(failure.usage).toEqual({ inputTokens: 40, outputTokens: 9 });
  });
});

describe('ProviderRegistry wired to the fake through the contract variables', () => {
  it('calls each available provider and prices its usage exactly', async () => {
    const registry = new ProviderRegistry(
      parseLlmConfig({
        OPENAI_API_KEY: 'sk-test-adapter',
        OPENAI_BASE_URL: fake.openaiBaseUrl,
        ANTHROPIC_API_KEY: 'sk-test-adapter',
        ANTHROPIC_BASE_URL: fake.anthropicBaseUrl,
        LLM_PRICES: '{ "claude-haiku-4-5": { "input": 0.8, "output": 4 } }',
        LLM_TIMEOUT_MS: '5000',
      }),
    );
    fake.enqueue(
      { kind: 'pick', usage: { inputTokens: 2_500, outputTokens: 333 } },
      { kind: 'pick', usage: { inputTokens: 2_500, outputTokens: 333 } },
    );
    const costs: Record<string, number> = {};
    for (const name of ['openai', 'anthropic'] as const) {
      const adapter = registry.adapter(name);
      if (!adapter) throw new Error(`${name} should be available`);
      const { usage } = await adapter.chooseSlots(REQUEST, { timeoutMs: registry.timeoutMs });
      costs[name] = registry.costUsd(adapter.model, usage);
    }
    // 2500 x 0.4 + 333 x 1.6 = 1532.8 -> 1533 micro-USD; with the override 2500 x 0.8 + 333 x 4 = 3332.
    expect(costs).toEqual({ openai: 0.001533, anthropic: 0.003332 });
    expect(fake.requests.map((r) => r.path)).toEqual(['/v1/chat/completions', '/v1/messages']);
  });
});
