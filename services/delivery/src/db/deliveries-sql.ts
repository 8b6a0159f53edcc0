import type { Knex } from '@mikro-orm/knex';

/**
 * Inserts delivery rows (every column of `deliveries`, `payload` as an object) as one JSON parameter: a firing
 * batch of 200 rows binds one value instead of 200 x 22, which the query builder compiled and the driver
 * serialized one by one (a visible share of the firing's CPU, ADR 081).
 */
export async function insertDeliveries(trx: Knex, rows: readonly Record<string, unknown>[]): Promise<void> {
  if (rows.length === 0) return;
  await trx.raw('insert into deliveries select * from json_populate_recordset(null::deliveries, ?::json)', [
    JSON.stringify(rows),
  ]);
}
