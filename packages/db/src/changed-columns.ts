import type { Sql } from './sql.js';

/**
 * Writes of loaded rows name only the columns whose values changed, as the unit of work did: a row read
 * without a lock may meanwhile have been changed by someone else (delivery: a reminder fired, an endpoint's
 * failures counted; integration: a sync lease renewed), and a column this write did not change must keep their
 * value.
 */

/** Equal as stored: dates by time, arrays and JSON objects by content (jsonb does not keep key order). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  }
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const keysA = Object.keys(a);
    const keysB = Object.keys(b);
    return (
      keysA.length === keysB.length &&
      keysA.every((k) => Object.hasOwn(b, k) && sameValue(Reflect.get(a, k), Reflect.get(b, k)))
    );
  }
  return a === b;
}

/** The entries of `after` (undefined ones left out) whose values differ from the same properties of `before`. */
export function changedEntries<T extends object>(before: T, after: Partial<T>): [keyof T & string, unknown][] {
  const changed: [keyof T & string, unknown][] = [];
  for (const key in after) {
    if (after[key] !== undefined && !sameValue(before[key], after[key])) changed.push([key, after[key]]);
  }
  return changed;
}

/** The column of a property: its name in snake case (every entity of this service names them so). */
export const columnOf = (property: string): string => property.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** How a column's binding is cast: jsonb columns bind as JSON text, arrays as PostgreSQL arrays. */
export type ColumnCast = 'jsonb' | 'text[]';

const placeholder = (key: string, casts: Readonly<Record<string, ColumnCast>>) =>
  casts[key] ? `?::${casts[key]}` : '?';
const bindingsOf = (entries: readonly [string, unknown][], casts: Readonly<Record<string, ColumnCast>>) =>
  entries.map(([key, value]) => (casts[key] === 'jsonb' ? JSON.stringify(value) : value));

/** `col = ?, ...` for `entries` with their bindings, cast per property as `casts` says. */
export function setClause(
  entries: readonly [string, unknown][],
  casts: Readonly<Record<string, ColumnCast>> = {},
): { set: string; bindings: unknown[] } {
  const set = entries.map(([key]) => `${columnOf(key)} = ${placeholder(key, casts)}`).join(', ');
  return { set, bindings: bindingsOf(entries, casts) };
}

/** Writes one new row: the columns of its properties (the others take their defaults). */
export async function insertRow(
  sql: Sql,
  table: string,
  row: object,
  casts: Readonly<Record<string, ColumnCast>> = {},
): Promise<void> {
  const entries = Object.entries(row);
  const columns = entries.map(([key]) => columnOf(key)).join(', ');
  const values = entries.map(([key]) => placeholder(key, casts)).join(', ');
  await sql.run(`insert into ${table} (${columns}) values (${values})`, bindingsOf(entries, casts));
}

/** Each property of a table's rows with its column's PostgreSQL type (for `jsonb_to_recordset`). */
export type ColumnTypes = ReadonlyMap<string, string>;

const recordType = (types: ColumnTypes, properties: readonly string[]) =>
  properties.map((p) => `${columnOf(p)} ${types.get(p) ?? 'text'}`).join(', ');

/** Rows as JSON text of records keyed by column, for `jsonb_to_recordset(?::jsonb)` (columns named once, not per row). */
function recordsOf(properties: readonly string[], rows: readonly object[]): string {
  const columns = properties.map((p) => [p, columnOf(p)] as const);
  return JSON.stringify(
    rows.map((row) => Object.fromEntries(columns.map(([p, column]) => [column, Reflect.get(row, p)]))),
  );
}

/** Writes new rows, every column of `types`, in one statement. */
export async function insertRows(sql: Sql, table: string, types: ColumnTypes, rows: readonly object[]): Promise<void> {
  if (rows.length === 0) return;
  const properties = [...types.keys()];
  const columns = properties.map(columnOf).join(', ');
  await sql.run(
    `insert into ${table} (${columns})
     select ${columns} from jsonb_to_recordset(?::jsonb) as r(${recordType(types, properties)})`,
    [recordsOf(properties, rows)],
  );
}

/** A row as it was read and as it is to be. */
export interface RowChange<T> {
  before: T;
  after: T;
}

/**
 * Writes what changed in each row, only the columns that changed, matched by id and tenant. Rows with the
 * same changed columns share one statement (as the unit of work batched them).
 */
export async function updateChangedRows<T extends { id: string; tenantId: string }>(
  sql: Sql,
  table: string,
  types: ColumnTypes,
  changes: readonly RowChange<T>[],
): Promise<void> {
  const groups = new Map<string, { properties: string[]; rows: object[] }>();
  for (const { before, after } of changes) {
    const properties = changedEntries(before, after).map(([key]) => key);
    if (properties.length === 0) continue;
    const key = properties.join(',');
    const group = groups.get(key) ?? { properties, rows: [] };
    group.rows.push(after);
    groups.set(key, group);
  }
  for (const { properties, rows } of groups.values()) {
    const matched = ['id', 'tenantId', ...properties];
    await sql.run(
      `update ${table} t set ${properties.map((p) => `${columnOf(p)} = v.${columnOf(p)}`).join(', ')}
       from jsonb_to_recordset(?::jsonb) as v(${recordType(types, matched)})
       where t.id = v.id and t.tenant_id = v.tenant_id`,
      [recordsOf(matched, rows)],
    );
  }
}
