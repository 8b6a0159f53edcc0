import { schemaDriftOnFreshDatabase } from '@routinely/testkit';
import { expect, it } from 'vitest';
import { configSchema, dbConfig } from '../src/index.js';

it('has migrations matching the entities', async () => {
  expect(await schemaDriftOnFreshDatabase(dbConfig)).toBe('');
});

it('has a default for every setting', () => {
  const config = configSchema.parse({});
  expect(config).toMatchObject({ SCHEDULER_CALL_DEADLINE_MS: 3_000, IMPORT_JOB_MAX_ROWS: 10_000 });
  expect(configSchema.parse({ SCHEDULER_CALL_DEADLINE_MS: '7' }).SCHEDULER_CALL_DEADLINE_MS).toBe(7);
});
