import { nameSchemas, queryBool, uuidOut } from '@routinely/platform';
import { z } from 'zod';
import { VISIBILITIES } from '../../domain/values.js';

/** Every route under /calendars/:calendar_id names its calendar with this (items and sharing import it). */
export const calendarIdParams = z.object({ calendar_id: z.uuid() });

export const isoDateTimeOut = z.string().meta({ format: 'date-time', description: 'ISO-8601 UTC datetime with Z' });

export const calendarSchema = z.object({
  id: z.uuid(),
  tenant_id: uuidOut(),
  owner_id: uuidOut(),
  name: z.string(),
  description: z.string().nullable(),
  color: z.string().nullable(),
  timezone: z.string(),
  visibility: z.enum(VISIBILITIES),
  is_active: z.boolean(),
  permission: z.enum(['owner', 'admin', 'edit', 'view']).describe("the caller's effective level"),
  created_at: isoDateTimeOut,
  updated_at: isoDateTimeOut,
});

export const calendarPageSchema = z.object({
  items: z.array(calendarSchema),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
  pages: z.number().int(),
});

export const calendarListQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(100).default(20),
  include_shared: queryBool(true),
  is_active: z
    .enum(['true', 'false', '1', '0', 'null', 'all'])
    .default('true')
    .transform((v) => (v === 'null' || v === 'all' ? null : v === 'true' || v === '1'))
    .describe('true (default), false, or null/all for both'),
  sort_by: z.enum(['name', 'created_at', 'updated_at']).default('name'),
  sort_order: z.enum(['asc', 'desc']).default('asc'),
});

const color = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be #RRGGBB');

export const calendarCreateBody = z.object({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(5000).nullable().optional(),
  color: color.nullable().optional(),
  timezone: z.string().min(1).max(64).optional().describe('IANA timezone, default UTC'),
  visibility: z.enum(VISIBILITIES).optional().describe('default private'),
});

export const calendarPatchBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    description: z.string().max(5000).nullable(),
    color: color.nullable(),
    timezone: z.string().min(1).max(64),
    visibility: z.enum(VISIBILITIES),
  })
  .partial()
  .strict();

export const calendarDeleted = z.null().describe('Deleted');

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  Calendar: calendarSchema,
  CalendarPage: calendarPageSchema,
  CalendarCreate: calendarCreateBody,
  CalendarPatch: calendarPatchBody,
});
