import { schemaDriftOnFreshDatabase } from '@routinely/testkit';
import { expect, it } from 'vitest';
import { configSchema, dbConfig } from '../src/index.js';

it('has migrations matching the entities', async () => {
  expect(await schemaDriftOnFreshDatabase(dbConfig)).toBe('');
});

it('has a default for every setting', () => {
  const config = configSchema.parse({});
  expect(config).toMatchObject({ IMPORT_QUOTA_PER_HOUR: 5, IMPORT_QUOTA_PER_DAY: 20, IMPORT_JOB_MAX_ROWS: 10_000 });
  expect(configSchema.parse({ IMPORT_QUOTA_PER_HOUR: '7' }).IMPORT_QUOTA_PER_HOUR).toBe(7);
  expect(() => configSchema.parse({ IMPORT_QUOTA_PER_DAY: '10001' })).toThrow();
});
