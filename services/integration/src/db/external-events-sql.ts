import {
  type ColumnTypes,
  column,
  columnOf,
  insertRows,
  type RowChange,
  row,
  type Sql,
  updateChangedRows,
} from '@routinely/db';
import { z } from 'zod';
import { EXTERNAL_STATUSES, type ExternalEventRow } from './entities.js';

/** Each column of an external event with its type (see `changed-columns.ts` of @routinely/db). */
const EXTERNAL_EVENT_TYPE_OF = {
  id: 'uuid',
  integrationId: 'uuid',
  tenantId: 'text',
  userId: 'text',
  externalId: 'text',
  title: 'text',
  startAt: 'timestamptz',
  endAt: 'timestamptz',
  allDay: 'boolean',
  status: 'text',
  busy: 'boolean',
  version: 'int',
  createdAt: 'timestamptz',
  updatedAt: 'timestamptz',
} satisfies Record<Extract<keyof ExternalEventRow, string>, string>;
const EXTERNAL_EVENT_TYPES: ColumnTypes = new Map(Object.entries(EXTERNAL_EVENT_TYPE_OF));

const EXTERNAL_EVENT = [...EXTERNAL_EVENT_TYPES.keys()].map((p) => `${columnOf(p)} as "${p}"`).join(', ');

/** An external event as `EXTERNAL_EVENT` selects it, the entity's row (db/entities.ts) parsed column by column. */
const externalEventRow = row({
  id: column.uuid,
  integrationId: column.uuid,
  tenantId: column.text,
  userId: column.text,
  externalId: column.text,
  title: column.text,
  startAt: column.timestamp,
  endAt: column.timestamp,
  allDay: column.boolean,
  status: z.enum(EXTERNAL_STATUSES),
  busy: column.boolean,
  version: column.integer,
  createdAt: column.timestamp,
  updatedAt: column.timestamp,
}) satisfies z.ZodType<ExternalEventRow, unknown>;

/**
 * The integration's copies of provider events: all of them (`externalIds` null, a full answer) or those with
 * these external ids.
 */
export async function integrationExternalEvents(
  sql: Sql,
  integrationId: string,
  externalIds: readonly string[] | null,
): Promise<ExternalEventRow[]> {
  return sql.rows(
    externalEventRow,
    `select ${EXTERNAL_EVENT} from external_events
     where integration_id = ? ${externalIds ? 'and external_id = any(?::text[])' : ''}`,
    externalIds ? [integrationId, externalIds] : [integrationId],
  );
}

/** Writes new copies, every column, in one statement. */
export function insertExternalEvents(sql: Sql, rows: readonly ExternalEventRow[]): Promise<void> {
  return insertRows(sql, 'external_events', EXTERNAL_EVENT_TYPES, rows);
}

/** Writes what changed in each copy, only the columns that changed (one statement per set of them). */
export function writeExternalEventChanges(sql: Sql, changes: readonly RowChange<ExternalEventRow>[]): Promise<void> {
  return updateChangedRows(sql, 'external_events', EXTERNAL_EVENT_TYPES, changes);
}

/** Removes every copy of the integration's events. */
export async function deleteIntegrationExternalEvents(sql: Sql, integrationId: string): Promise<void> {
  await sql.run('delete from external_events where integration_id = ?', [integrationId]);
}
