import { schemaDriftOnFreshDatabase } from '@routinely/testkit';
import { expect, it } from 'vitest';
import { configSchema, dbConfig } from '../src/index.js';

it('has migrations matching the entities', async () => {
  expect(await schemaDriftOnFreshDatabase(dbConfig)).toBe('');
});

it('has a default for every setting and refuses a malformed LLM_PRICES', () => {
  const config = configSchema.parse({});
  expect(config).toMatchObject({
    OPENAI_BASE_URL: 'https://api.openai.com/v1',
    ANTHROPIC_BASE_URL: 'https://api.anthropic.com',
    LLM_PRICES: {},
  });
  expect(config.OPENAI_API_KEY).toBeUndefined();
  expect(configSchema.parse({ LLM_PRICES: '{"m":{"input":1,"output":2}}' }).LLM_PRICES).toEqual({
    m: { input: 1, output: 2 },
  });
  expect(() => configSchema.parse({ LLM_PRICES: '{nope' })).toThrow(/LLM_PRICES/);
  expect(() => configSchema.parse({ LLM_PRICES: '{"m":{"input":-1,"output":2}}' })).toThrow();
});
