import { describe, expect, it } from 'vitest';
import {
  BUILTIN_PRICES,
  costMicroUsd,
  costUsd,
  MAX_RATIONALE_LENGTH,
  matchPicks,
  ProviderRegistry,
  parseLlmConfig,
  priceOf,
} from '../src/index.js';
import { REQUEST } from './fixtures.js';

describe('pricing', () => {
  it('prices per million tokens, rounded half up to 6 decimals', () => {
    const mini = BUILTIN_PRICES['gpt-4.1-mini'] as { input: number; output: number };
    expect(costUsd({ inputTokens: 1_000_000, outputTokens: 1_000_000 }, mini)).toBe(2);
    expect(costUsd({ inputTokens: 1234, outputTokens: 56 }, mini)).toBe(0.000583);
    // 3 x 0.35 is 1.0499999... in binary; the exact 1.05 micro-USD rounds to 1.
    expect(costMicroUsd({ inputTokens: 3, outputTokens: 0 }, { input: 0.35, output: 0 })).toBe(1);
    // Exactly half a micro-dollar rounds up.
    expect(costMicroUsd({ inputTokens: 5, outputTokens: 0 }, { input: 0.1, output: 0 })).toBe(1);
    expect(costUsd({ inputTokens: 0, outputTokens: 0 }, mini)).toBe(0);
  });

  it('finds a dated snapshot by its base name and lets overrides win', () => {
    expect(priceOf('gpt-4.1-mini-2025-04-14')).toEqual({ input: 0.4, output: 1.6 });
    expect(priceOf('gpt-4.1-2025-04-14')).toEqual({ input: 2, output: 8 });
    expect(priceOf('claude-haiku-4-5-20251001')).toEqual({ input: 1, output: 5 });
    expect(priceOf('my-local-model')).toBeUndefined();
    expect(priceOf('gpt-4.1-mini', { 'gpt-4.1-mini': { input: 0.2, output: 0.8 } })).toEqual({
      input: 0.2,
      output: 0.8,
    });
  });
});

describe('provider configuration', () => {
  it('lists builtin always and a model provider as available when its key is set', () => {
    const registry = new ProviderRegistry(parseLlmConfig({ OPENAI_API_KEY: 'sk-x', ANTHROPIC_API_KEY: '' }));
    expect(registry.list()).toEqual([
      { name: 'builtin', model: 'solver', available: true },
      { name: 'openai', model: 'gpt-4.1-mini', available: true },
      { name: 'anthropic', model: 'claude-haiku-4-5', available: false },
    ]);
    expect(registry.adapter('openai')?.model).toBe('gpt-4.1-mini');
    expect(registry.adapter('anthropic')).toBeUndefined();
    expect(registry.timeoutMs).toBe(30_000);
    expect(registry.costUsd('solver', { inputTokens: 10, outputTokens: 10 })).toBe(0);
  });

  it('reads LLM_PRICES and refuses bad prices and unpriced configured models', () => {
    const config = parseLlmConfig({
      OPENAI_API_KEY: 'sk-x',
      OPENAI_MODEL: 'local-llama',
      OPENAI_BASE_URL: 'http://127.0.0.1:8080/v1',
      LLM_PRICES: '{ "local-llama": { "input": 0.05, "output": 0.25 } }',
    });
    const registry = new ProviderRegistry(config);
    expect(registry.costUsd('local-llama', { inputTokens: 20_000, outputTokens: 4_000 })).toBe(0.002);
    const issues = (env: Record<string, string>) => {
      try {
        parseLlmConfig(env);
        return [];
      } catch (error) {
        return (error as { issues: { path: string[] }[] }).issues.map((i) => i.path.join('.'));
      }
    };
    expect(issues({ LLM_PRICES: 'not json' })).toEqual(['LLM_PRICES']);
    expect(issues({ LLM_PRICES: '{ "m": { "input": -1, "output": 1 } }' })).toEqual(['LLM_PRICES']);
    expect(issues({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_MODEL: 'claude-unknown' })).toEqual(['ANTHROPIC_MODEL']);
    // Without a key the provider cannot run, so its price does not matter.
    expect(issues({ ANTHROPIC_MODEL: 'claude-unknown' })).toEqual([]);
    expect(issues({ OPENAI_BASE_URL: 'not a url' })).toEqual(['OPENAI_BASE_URL']);
  });
});

describe('matchPicks', () => {
  const [a, b, c] = REQUEST.tasks.map((t) => t.task_id) as [string, string, string];

  it('resolves each task of the request to its pick or the reason there is none', () => {
    const outcomes = matchPicks(REQUEST, {
      choices: [
        { task_id: a, candidate: 1, rationale: `  ${'x'.repeat(800)}  ` },
        { task_id: b, candidate: 0, rationale: 'early' },
        { task_id: b, candidate: 1, rationale: 'late' },
        { task_id: 'not-in-the-request', candidate: 0, rationale: 'ignored' },
      ],
    });
    expect(outcomes.map((o) => [o.task_id, o.status])).toEqual([
      [a, 'picked'],
      [b, 'duplicate'],
      [c, 'missing'],
    ]);
    const first = outcomes[0];
    expect(first?.status === 'picked' && first.candidate).toEqual(REQUEST.tasks[0]?.candidates[1]);
    expect(first?.status === 'picked' && first.rationale.length).toBe(MAX_RATIONALE_LENGTH);
    expect(matchPicks(REQUEST, { choices: [{ task_id: c, candidate: -1, rationale: '' }] })[2]?.status).toBe(
      'invalid_candidate',
    );
  });
});
