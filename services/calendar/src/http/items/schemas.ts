import { dateOut, nameSchemas, queryBool, uuidOut } from '@routinely/platform';
import { z } from 'zod';
import { ITEM_STATUSES, ITEM_TYPES } from '../../domain/values.js';
import { isoDateTimeOut } from '../calendars/schemas.js';

/** A repeatable query parameter (`?t=a&t=b`), also accepting a comma-separated value. */
function queryList<T extends z.ZodType>(item: T) {
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

export const itemSchema = z.object({
  id: z.uuid(),
  calendar_id: z.uuid(),
  type: z.enum(ITEM_TYPES),
  title: z.string(),
  description: z.string().nullable(),
  location: z.string().nullable(),
  start_at: isoDateTimeOut,
  end_at: isoDateTimeOut,
  all_day: z.boolean(),
  status: z.enum(ITEM_STATUSES),
  created_by: uuidOut(),
  created_at: isoDateTimeOut,
  updated_at: isoDateTimeOut,
});

export const itemWindowSchema = z.object({
  calendar_id: z.uuid(),
  start_date: dateOut(),
  end_date: dateOut(),
  items: z.array(itemSchema),
  total: z.number().int(),
});

export const itemParams = z.object({ calendar_id: z.uuid(), item_id: z.uuid() });

export const itemWindowQuery = z.object({
  start_date: z.iso.date().describe('first day of the window (YYYY-MM-DD, calendar timezone)'),
  end_date: z.iso.date().describe('last day of the window, inclusive'),
  item_types: queryList(z.enum(ITEM_TYPES)).describe('repeatable: meeting, event, task'),
  include_cancelled: queryBool(false),
  status: queryList(z.enum(ITEM_STATUSES)).describe('repeatable; naming cancelled includes cancelled items'),
});

const dateTimeIn = z.iso.datetime({ offset: true }).transform((v) => new Date(v));
const activeStatus = z.enum(['confirmed', 'tentative']);

export const itemCreateBody = z.object({
  type: z.enum(ITEM_TYPES).default('event'),
  title: z.string().trim().min(1).max(500),
  description: z.string().max(10_000).nullable().optional(),
  location: z.string().max(500).nullable().optional(),
  start_at: dateTimeIn,
  end_at: dateTimeIn,
  all_day: z.boolean().default(false),
  status: activeStatus.default('confirmed'),
});

export const itemPatchBody = z
  .object({
    type: z.enum(ITEM_TYPES),
    title: z.string().trim().min(1).max(500),
    description: z.string().max(10_000).nullable(),
    location: z.string().max(500).nullable(),
    start_at: dateTimeIn,
    end_at: dateTimeIn,
    all_day: z.boolean(),
    status: activeStatus.describe('cancel with DELETE; confirmed or tentative restores a cancelled item'),
  })
  .partial()
  .strict();

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  Item: itemSchema,
  ItemWindow: itemWindowSchema,
  ItemCreate: itemCreateBody,
  ItemPatch: itemPatchBody,
});
