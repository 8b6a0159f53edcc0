import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeLlmServer, type LlmBehavior } from '@routinely/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AnthropicAdapter, type ModelAdapter, ModelCallError, matchPicks, OpenAiAdapter } from '../src/index.js';
import { REQUEST } from './fixtures.js';

let fake: FakeLlmServer;
/** Stands for an internal address a redirect points at: it must never be asked. */
let internal: Server;
let internalHits = 0;
beforeAll(async () => {
  fake = await FakeLlmServer.start({ apiKey: 'sk-hostile' });
  internal = createServer((_req, res) => {
    internalHits += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"choices":[]}');
  });
  await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await fake.close();
  await new Promise((resolve) => internal.close(resolve));
});
beforeEach(() => fake.reset());

const TIMEOUT = { timeoutMs: 10_000 };

const providers: { name: 'openai' | 'anthropic'; make: () => ModelAdapter }[] = [
  {
    name: 'openai',
    make: () =>
      new OpenAiAdapter({ apiKey: 'sk-hostile', baseURL: fake.openaiBaseUrl, model: 'gpt-4.1-mini', maxTokens: 2048 }),
  },
  {
    name: 'anthropic',
    make: () =>
      new AnthropicAdapter({
        apiKey: 'sk-hostile',
        baseURL: fake.anthropicBaseUrl,
        model: 'claude-haiku-4-5',
        maxTokens: 2048,
      }),
  },
];

const makeOf = (name: 'openai' | 'anthropic') =>
  (providers.find((p) => p.name === name) as (typeof providers)[0]).make();

async function failureOf(promise: Promise<unknown>): Promise<ModelCallError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ModelCallError);
    return error as ModelCallError;
  }
  throw new Error('expected the call to fail');
}

const raw = (body: string, contentType = 'application/json', status = 200): LlmBehavior => ({
  kind: 'raw',
  status,
  body,
  contentType,
});

describe.each(providers)('$name adapter against a provider that answers badly', ({ name, make }) => {
  it.each([
    ['an HTML page with 200', raw('<html><body>Please sign in to the Wi-Fi</body></html>', 'text/html')],
    ['an empty body', raw('')],
    ['null', raw('null')],
    ['a JSON string', raw('"hello"')],
    ['an empty object', raw('{}')],
    ['a JSON array', raw('[1,2,3]')],
    ['JSON labelled as HTML', raw('{"choices":[]}', 'text/html')],
  ])('%s is an invalid answer, never a crash', async (_label, behavior) => {
    fake.enqueue(behavior);
    const failure = await failureOf(make().chooseSlots(REQUEST, TIMEOUT));
    expect(failure.failure).toBe('invalid_answer');
    expect(failure.detail).not.toMatch(/Cannot read/);
    expect(fake.requests).toHaveLength(1);
  });

  it('does not follow a redirect, least of all to an internal address', async () => {
    const location = `http://127.0.0.1:${(internal.address() as AddressInfo).port}/v1/chat/completions`;
    fake.enqueue({ kind: 'raw', status: 302, body: '', contentType: 'text/html', headers: { location } });
    const hitsBefore = internalHits;
    const failure = await failureOf(make().chooseSlots(REQUEST, TIMEOUT));
    expect(failure.failure).toBe('refused');
    expect(failure.status).toBe(302);
    expect(internalHits).toBe(hitsBefore);
  });

  it('bounds absurd token counts by the call budget', async () => {
    fake.enqueue({ kind: 'pick', usage: { inputTokens: 1e15, outputTokens: 1e15 } });
    const adapter = make();
    const budget = adapter.budget(REQUEST);
    const { usage } = await adapter.chooseSlots(REQUEST, TIMEOUT);
    expect(budget.outputTokens).toBe(2048);
    expect(budget.inputTokens).toBeGreaterThan(Buffer.byteLength(JSON.stringify(REQUEST)));
    expect(usage).toEqual(budget);
  });

  it('sends its output bound, so the budget holds', async () => {
    fake.enqueue({ kind: 'pick' });
    await make().chooseSlots(REQUEST, TIMEOUT);
    const sent = fake.requests[0]?.body as Record<string, unknown>;
    expect(sent[name === 'openai' ? 'max_completion_tokens' : 'max_tokens']).toBe(2048);
  });
});

describe('answers of the wrong envelope', () => {
  it('an Anthropic content that is a string is an invalid answer', async () => {
    fake.enqueue(
      raw(
        JSON.stringify({
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-haiku-4-5',
          content: 'I picked the first slots',
          stop_reason: 'end_turn',
          usage: { input_tokens: 10, output_tokens: 5 },
        }),
      ),
    );
    const failure = await failureOf(makeOf('anthropic').chooseSlots(REQUEST, TIMEOUT));
    expect(failure.failure).toBe('invalid_answer');
    // The tokens it cost are still known, so they are billed.
    expect(failure.usage).toEqual({ inputTokens: 10, outputTokens: 5 });
  });

  it('an OpenAI answer without choices is an invalid answer carrying its usage', async () => {
    fake.enqueue(raw(JSON.stringify({ id: 'x', object: 'chat.completion', usage: { prompt_tokens: 7 } })));
    const failure = await failureOf(makeOf('openai').chooseSlots(REQUEST, TIMEOUT));
    expect(failure.failure).toBe('invalid_answer');
    expect(failure.usage).toEqual({ inputTokens: 7, outputTokens: 0 });
  });
});

describe('text from a model', () => {
  it('is stored clean: no NUL, no control characters, no lone surrogates, bounded length', () => {
    const task = REQUEST.tasks[0];
    if (!task) throw new Error('fixture has tasks');
    const [pick] = matchPicks(REQUEST, {
      choices: [{ task_id: task.task_id, candidate: 0, rationale: `a\u0000b\u0007c \ud800 d${'x'.repeat(2000)}` }],
    });
    expect(pick?.status).toBe('picked');
    const rationale = pick?.status === 'picked' ? pick.rationale : '';
    expect(rationale.startsWith('abc \ufffd d')).toBe(true);
    expect(rationale.length).toBeLessThanOrEqual(500);
    expect(rationale).not.toMatch(/[\uD800-\uDFFF]/);
  });
});
