import type { IntegrationRow } from '../db/entities.js';
import { integrationById, updateIntegration } from '../db/integrations-sql.js';
import type { IntegrationContext } from './context.js';

/** Columns of an integration a step changes, by property. */
export type IntegrationPatch = Partial<Omit<IntegrationRow, 'id'>>;

/**
 * An integration by id (null when gone), read on its own: the provider calls that follow must not hold a
 * transaction open, so a step reads, calls, then writes what changed with `saveIntegration`.
 */
export async function loadIntegration(ctx: IntegrationContext, id: string): Promise<IntegrationRow | null> {
  return (await integrationById(ctx.db, id)) ?? null;
}

/** Writes `patch` to the integration in one UPDATE (and onto `row`, which the caller goes on using). */
export async function saveIntegration(ctx: IntegrationContext, row: IntegrationRow, patch: IntegrationPatch) {
  Object.assign(row, patch);
  await ctx.db.transaction((sql) => updateIntegration(sql, row, patch));
}
