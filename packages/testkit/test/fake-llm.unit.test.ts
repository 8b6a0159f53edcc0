import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeLlmServer } from '../src/index.js';

// The fake's wire format as a raw HTTP client sees it (the SDK-based adapters are tested in packages/llm).
let fake: FakeLlmServer;
beforeAll(async () => {
  fake = await FakeLlmServer.start({ apiKey: 'k1' });
});
afterAll(async () => {
  await fake.close();
});

const tasks = [
  {
    task_id: 't1',
    title: 'One',
    candidates: [
      { index: 0, start: 'a', end: 'b' },
      { index: 1, start: 'c', end: 'd' },
    ],
  },
];
const post = (path: string, headers: Record<string, string>, body: unknown) =>
  fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('FakeLlmServer', () => {
  it('answers Chat Completions with the picked candidate as JSON content and usage', async () => {
    fake.enqueue({ kind: 'pick', pick: 'last', usage: { inputTokens: 7, outputTokens: 3 } });
    const res = await post(
      '/v1/chat/completions',
      { authorization: 'Bearer k1' },
      {
        model: 'm',
        messages: [{ role: 'user', content: JSON.stringify({ tasks }) }],
      },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^req_fake_/);
    const json = (await res.json()) as { choices: { message: { content: string } }[]; usage: unknown };
    expect(JSON.parse(json.choices[0]?.message.content ?? '')).toMatchObject({
      choices: [{ task_id: 't1', candidate: 1 }],
    });
    expect(json.usage).toEqual({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
  });

  it('answers Messages with a forced tool call, or text when no tool is forced', async () => {
    const base = { model: 'm', max_tokens: 100, messages: [{ role: 'user', content: JSON.stringify({ tasks }) }] };
    const headers = { 'x-api-key': 'k1', 'anthropic-version': '2023-06-01' };
    const forced = await post('/v1/messages', headers, {
      ...base,
      tool_choice: { type: 'tool', name: 'choose_slots' },
    });
    const message = (await forced.json()) as {
      content: { type: string; name: string; input: unknown }[];
      stop_reason: string;
    };
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content[0]).toMatchObject({
      type: 'tool_use',
      name: 'choose_slots',
      input: { choices: [{ candidate: 0 }] },
    });
    const free = (await (await post('/v1/messages', headers, base)).json()) as { content: { type: string }[] };
    expect(free.content[0]?.type).toBe('text');
  });

  it('refuses what the real APIs refuse, in their error shapes', async () => {
    const bad = await post('/v1/chat/completions', { authorization: 'Bearer nope' }, { model: 'm', messages: [] });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ error: { type: 'authentication_error' } });
    const noVersion = await post('/v1/messages', { 'x-api-key': 'k1' }, { model: 'm', max_tokens: 1, messages: [] });
    expect(noVersion.status).toBe(400);
    expect(await noVersion.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    const noMax = await post(
      '/v1/messages',
      { 'x-api-key': 'k1', 'anthropic-version': '2023-06-01' },
      {
        model: 'm',
        messages: [],
      },
    );
    expect(noMax.status).toBe(400);
    fake.enqueue({ kind: 'error', status: 429, retryAfter: '2' });
    const limited = await post(
      '/v1/messages',
      { 'x-api-key': 'k1', 'anthropic-version': '2023-06-01' },
      {
        model: 'm',
        max_tokens: 1,
        messages: [],
      },
    );
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(await limited.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(fake.requests.at(-1)?.status).toBe(429);
  });
});
