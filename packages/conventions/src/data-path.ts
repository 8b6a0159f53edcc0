import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { sourceFiles, sourceRoots } from './database-access.js';

/**
 * One data path (ADR 008, its 2026-11-29 amendment): services reach their database through the `Sql` handle their composition root made
 * (`Sql.of(orm)`), open transactions on it, and read rows through a row schema. MikroORM stays for entities,
 * migrations and the drift check, so an `EntityManager`, a raw connection, the ORM-shaped openers or a row
 * type asserted by a generic anywhere else is a second path. Found by text in every source folder, db/ included.
 */
const PATTERNS: [name: string, pattern: RegExp][] = [
  ['EntityManager', /\bEntityManager\b/g],
  ['getConnection', /\bgetConnection\(/g],
  ['Sql opened from the ORM', /\bSql\.(?:pool|transaction|rawTransaction|within)\(/g],
  ['row type asserted', /\.(?:rows|first)<[^>(]/g],
  ['rows without a schema', /\.(?:rows|first)\(\s*['"`]/g],
];

/** Where the ORM itself is the point: the entity and migration modules (packages/db is outside the roots). */
const isOrmModule = (path: string) => /(?:^|\/)(?:entities\.ts|migrations\/)/.test(path);

/** `file: what` -> occurrences of a second data path in every source folder of `sourceRoots`. */
export function secondDataPaths(root: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const src of sourceRoots(root)) {
    for (const file of sourceFiles(src, new Set())) {
      const path = relative(root, file);
      if (isOrmModule(path)) continue;
      const text = readFileSync(file, 'utf8');
      for (const [name, pattern] of PATTERNS) {
        const hits = text.match(pattern)?.length ?? 0;
        if (hits > 0) counts[`${path}: ${name}`] = hits;
      }
    }
  }
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}
