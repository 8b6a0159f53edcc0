import { describe, expect, it } from 'vitest';
import { secondDataPaths } from '../src/data-path.js';

const ROOT = new URL('../../../', import.meta.url).pathname;

describe('one data path', () => {
  it('no EntityManager, raw connection, ORM-opened Sql or unparsed row outside packages/db, entities and migrations', () => {
    expect(secondDataPaths(ROOT)).toEqual({});
  });

  it('finds each kind of second path in a planted fixture, db/ included, and leaves the ORM modules alone', () => {
    const fixture = new URL('./fixtures/data-path/', import.meta.url).pathname;
    expect(secondDataPaths(fixture)).toEqual({
      'services/demo/src/db/tasks-sql.ts: row type asserted': 1,
      'services/demo/src/db/tasks-sql.ts: rows without a schema': 1,
      'services/demo/src/domain/rules.ts: EntityManager': 2,
      'services/demo/src/domain/rules.ts: Sql opened from the ORM': 1,
      'services/demo/src/domain/rules.ts: getConnection': 1,
    });
  });
});
