import { z } from 'zod';

/**
 * Column codecs: how a row's values arrive from PostgreSQL (pool type parsing as read-pool.ts sets it: dates,
 * timestamps and intervals as text, int8 and numeric as text) and what the service reads them as. A row
 * schema built from these fails loudly when a column is renamed, dropped or changes type, instead of handing
 * `undefined` on to the domain.
 */

/**
 * `timestamptz` as a `Date` (text from the pools, a `Date` from a driver that parses it). One transform over
 * `z.any()` rather than a union of two schemas: a task read parses thousands of these, and the union cost about
 * five times the conversion itself.
 */
const timestamp = z.any().transform((value: unknown, ctx): Date => {
  const date = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : undefined;
  if (date === undefined || Number.isNaN(date.getTime())) {
    ctx.addIssue({ code: 'custom', message: 'not a timestamp' });
    return z.NEVER;
  }
  return date;
});

/** `date` as its `YYYY-MM-DD` text (a calendar date has no instant, so it stays a string). */
const date = z
  .union([z.string(), z.date()])
  .transform((value) => (value instanceof Date ? value.toISOString().slice(0, 10) : value.slice(0, 10)));

/** `int8`, `numeric` and `count(*)` (text from the driver, to keep precision) as a number. */
const bigint = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const number = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(number)) {
    ctx.addIssue({ code: 'custom', message: 'not a number' });
    return z.NEVER;
  }
  return number;
});

export const column = {
  uuid: z.string(),
  text: z.string(),
  boolean: z.boolean(),
  /** `int2`/`int4`/`float8`: the driver answers numbers. */
  integer: z.number(),
  bigint,
  timestamp,
  date,
  /** `jsonb` read as the given schema. */
  json: <S extends z.ZodType>(schema: S) => schema,
  /** `text[]`/`uuid[]`. */
  textArray: z.array(z.string()),
} as const;

/** A row schema: `row({ id: column.uuid, created_at: column.timestamp })`. */
export function row<S extends z.ZodRawShape>(shape: S) {
  return z.object(shape);
}

export type Row<S extends z.ZodType> = z.output<S>;
