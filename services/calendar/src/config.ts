import { platformConfigSchema } from '@routinely/platform';
import { z } from 'zod';

/** The calendar service's environment; every variable has a default so the all-in-one host needs none. */
export const configSchema = platformConfigSchema.extend({
  CALENDAR_LOOKUP_DEADLINE_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(3_000)
    .describe('deadline of one user lookup over gRPC (sharing by email)'),
  CALENDAR_MAX_WINDOW_DAYS: z.coerce
    .number()
    .int()
    .positive()
    .default(366)
    .describe('widest item window one query may ask for, in days (bounds the work of one request)'),
  CALENDAR_OUTBOX_POLL_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(250)
    .describe('how often the outbox relay looks for unpublished events'),
});
/** Parsed by the host (defineServiceModule), which fails start-up naming every bad variable. */
export type CalendarConfig = z.infer<typeof configSchema>;
