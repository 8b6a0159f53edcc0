import { type Orm, Sql } from '@routinely/db';
import { z } from 'zod';

/** Any row, every column as the pool answers it: what a test's assertion reads (services read through schemas). */
const anyRow = z.record(z.string(), z.unknown());

/**
 * The rows of a statement a test runs to check what a service stored, on the service's own handle. `T` only
 * names the columns the assertion reads; the test's expectations check their values.
 */
export async function sqlRows<T = Record<string, unknown>>(
  orm: Orm,
  query: string,
  params: readonly unknown[] = [],
): Promise<T[]> {
  return (await Sql.of(orm).rows(anyRow, query, params)) as T[];
}

/** A statement a test runs to set up a state the API cannot produce (answers the rows it touched). */
export function sqlRun(orm: Orm, query: string, params: readonly unknown[] = []): Promise<number> {
  return Sql.of(orm).run(query, params);
}
