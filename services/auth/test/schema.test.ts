import { schemaDriftOnFreshDatabase } from '@routinely/testkit';
import { expect, it } from 'vitest';
import { dbConfig } from '../src/db/config.js';

it('committed migrations match the entities (no drift)', async () => {
  expect(await schemaDriftOnFreshDatabase(dbConfig)).toBe('');
});
