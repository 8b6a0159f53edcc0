import { type ColumnTypes, columnOf, insertRows, type RowChange, type Sql, updateChangedRows } from '@routinely/db';
import type { ExternalEventRow } from './entities.js';

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

type Times = 'startAt' | 'endAt' | 'createdAt' | 'updatedAt';
type RawExternalEvent = Omit<ExternalEventRow, Times> & Record<Times, string | Date>;

/**
 * The integration's copies of provider events: all of them (`externalIds` null, a full answer) or those with
 * these external ids.
 */
export async function integrationExternalEvents(
  sql: Sql,
  integrationId: string,
  externalIds: readonly string[] | null,
): Promise<ExternalEventRow[]> {
  const rows = await sql.rows<RawExternalEvent>(
    `select ${EXTERNAL_EVENT} from external_events
     where integration_id = ? ${externalIds ? 'and external_id = any(?::text[])' : ''}`,
    externalIds ? [integrationId, externalIds] : [integrationId],
  );
  return rows.map((raw) => ({
    ...raw,
    startAt: new Date(raw.startAt),
    endAt: new Date(raw.endAt),
    createdAt: new Date(raw.createdAt),
    updatedAt: new Date(raw.updatedAt),
  }));
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
  await sql.rows('delete from external_events where integration_id = ?', [integrationId]);
}
