import type pg from 'pg';

/**
 * Every connection a service opens is pinned to its own schema at connection level: the startup option below
 * is the session's default, so no pooled connection ever depends on what ran on it before, and `RESET ALL` or
 * `DISCARD ALL` return to it. The ORM's pool, the read pool and the lock pool all take it (ADR 029), and the
 * service's role has the same default (service-roles.ts) for any other connection opened with its URL.
 */
export function searchPathOption(schema: string): string {
  return `-c search_path=${quoteIdentifier(schema)}`;
}

/** A schema name as a quoted identifier (double quotes doubled). */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The search_path a connection reports, unquoted (`"task"` -> `task`). */
export async function searchPathOf(client: Pick<pg.ClientBase, 'query'>): Promise<string> {
  const { rows } = await client.query<{ path: string }>("select current_setting('search_path') as path");
  return String(rows[0]?.path)
    .replace(/^"(.*)"$/, '$1')
    .replace(/""/g, '"');
}
