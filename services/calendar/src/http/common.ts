import { z } from 'zod';

/** A repeatable query parameter (`?t=a&t=b`), also accepting a comma-separated value. */
export function queryList<T extends z.ZodType>(item: T) {
  return z.preprocess(
    (v) =>
      v === undefined
        ? undefined
        : [v]
            .flat()
            .flatMap((s) => String(s).split(','))
            .map((s) => s.trim())
            .filter(Boolean),
    z.array(item).optional(),
  );
}

export const calendarIdParams = z.object({ calendar_id: z.uuid() });

export const isoDateTimeOut = z.string().meta({ format: 'date-time', description: 'ISO-8601 UTC datetime with Z' });
