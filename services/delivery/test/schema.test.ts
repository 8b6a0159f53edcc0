import { openOrm, schemaDrift } from '@routinely/db';
import { createTestDatabase } from '@routinely/testkit';
import { expect, it } from 'vitest';
import { dbConfig } from '../src/db/config.js';

it('committed migrations match the entities (no drift)', async () => {
  const db = await createTestDatabase();
  const orm = await openOrm(db.url, dbConfig);
  try {
    expect(await schemaDrift(orm)).toBe('');
  } finally {
    await orm.close();
    await db.drop();
  }
});
