import { z } from 'zod';

/** A boolean query parameter (`true`/`false`/`1`/`0`) with its documented default. */
export function queryBool(fallback: boolean) {
  return z
    .enum(['true', 'false', '1', '0'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');
}

/** Paged lists of area C (contract): `limit` default 50, at most 500, with `offset`. */
export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

/** The paged-list envelope `{ items, total, limit, offset }`. */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
