import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Database access written outside a service's db/ folder, found by text: ORM forks, knex, raw connections and
 * SQL statements in strings. dependency-cruiser sees imports, not a `Sql` handle or an EntityManager passed
 * in, so this complements the `only-db-reaches-the-database` rule.
 */
const PATTERNS: [name: string, pattern: RegExp][] = [
  ['em.fork', /\bem\.fork\(/g],
  ['knex', /\bgetKnex\(|\bknex\b/g],
  ['getConnection', /\bgetConnection\(/g],
  [
    'sql statement',
    /['`"]\s*(?:select\s[\s\S]{0,200}?\sfrom\s|insert\s+into\s|update\s+[\w."]+\s+set\s|delete\s+from\s|with\s+\w+\s+as\s*\()/gi,
  ],
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'db' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** `file: what` -> occurrences, for every service's src/ outside db/. */
export function databaseAccessOutsideDb(root: string): Record<string, number> {
  const counts: Record<string, number> = {};
  const services = join(root, 'services');
  for (const service of readdirSync(services)) {
    for (const file of sourceFiles(join(services, service, 'src'))) {
      const text = readFileSync(file, 'utf8');
      for (const [name, pattern] of PATTERNS) {
        const hits = text.match(pattern)?.length ?? 0;
        if (hits > 0) counts[`${relative(root, file)}: ${name}`] = hits;
      }
    }
  }
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}
