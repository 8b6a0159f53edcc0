import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { databaseAccessOutsideDb } from '../src/database-access.js';

const ROOT = new URL('../../../', import.meta.url).pathname;
const KNOWN = new URL('../known-database-access.json', import.meta.url);

describe('database access outside db/', () => {
  it('grows nowhere, and what was moved into db/ leaves the list (UPDATE_KNOWN=1 rewrites it)', () => {
    const found = databaseAccessOutsideDb(ROOT);
    if (process.env.UPDATE_KNOWN === '1') writeFileSync(KNOWN, `${JSON.stringify(found, null, 2)}\n`);
    const known: Record<string, number> = JSON.parse(readFileSync(KNOWN, 'utf8'));
    const grown = Object.entries(found).filter(([place, n]) => n > (known[place] ?? 0));
    const shrunk = Object.entries(known).filter(([place, n]) => (found[place] ?? 0) < n);
    expect(grown, 'new database access outside db/: move it into a db/<table>-sql.ts module').toEqual([]);
    expect(shrunk, 'less than known: lower known-database-access.json').toEqual([]);
  });

  it('finds a fork, a unit-of-work call, knex and a statement in a string, in services and shared packages (packages/db exempt)', () => {
    const fixture = new URL('./fixtures/database-access/', import.meta.url).pathname;
    expect(databaseAccessOutsideDb(fixture)).toEqual({
      'packages/lib/src/relay.ts: em.fork': 1,
      'services/demo/src/domain/rules.ts: em.fork': 1,
      'services/demo/src/domain/rules.ts: knex': 2,
      'services/demo/src/domain/rules.ts: orm call': 1,
      'services/demo/src/domain/rules.ts: sql statement': 2,
    });
  });
});
