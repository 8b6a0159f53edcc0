import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';

/**
 * Database access written outside a service's db/ folder, found by text: ORM forks, the unit of work's reads
 * and writes, knex, raw connections and SQL statements in strings. dependency-cruiser sees imports, not a `Sql` handle or an EntityManager passed
 * in, so this complements the `only-db-reaches-the-database` rule.
 */
const PATTERNS: [name: string, pattern: RegExp][] = [
  ['em.fork', /\bem\.fork\(/g],
  [
    'orm call',
    /\b(?:em|tx)\.(?:create|find|findOne|findOneOrFail|persist|count|nativeUpdate|nativeDelete|getReference|assign|flush|remove|upsert)\(/g,
  ],
  ['knex', /\bgetKnex\(|\bknex\b/g],
  ['getConnection', /\bgetConnection\(/g],
  [
    'sql statement',
    /['`"]\s*(?:select\s[\s\S]{0,200}?\sfrom\s|insert\s+into\s|update\s+[\w."]+\s+set\s|delete\s+from\s|with\s+\w+\s+as\s*\()/gi,
  ],
];

/** The non-test `.ts` files under `dir`, skipping folders named in `skip` (db/ for this check). */
export function sourceFiles(dir: string, skip: ReadonlySet<string> = new Set(['db'])): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return skip.has(entry.name) ? [] : sourceFiles(path, skip);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * Where the check looks: every service's and deployable's src/, and every shared package's but two: packages/db
 * holds the one transaction helper (`Sql`) and the ORM setup, and this package names the patterns it looks for.
 */
const EXEMPT_PACKAGES = new Set(['db', 'conventions']);

export function sourceRoots(root: string): string[] {
  const children = (folder: string) =>
    existsSync(join(root, folder))
      ? readdirSync(join(root, folder)).map((name) => join(root, folder, name, 'src'))
      : [];
  return [
    ...children('services'),
    ...children('apps'),
    ...children('packages').filter((src) => !EXEMPT_PACKAGES.has(basename(dirname(src)))),
  ].filter((src) => existsSync(src));
}

/** `file: what` -> occurrences, for every source folder of `sourceRoots` outside its db/ folders. */
export function databaseAccessOutsideDb(root: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const src of sourceRoots(root)) {
    for (const file of sourceFiles(src)) {
      const text = readFileSync(file, 'utf8');
      const path = relative(root, file);
      for (const [name, pattern] of PATTERNS) {
        const hits = text.match(pattern)?.length ?? 0;
        if (hits > 0) counts[`${path}: ${name}`] = hits;
      }
    }
  }
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}
