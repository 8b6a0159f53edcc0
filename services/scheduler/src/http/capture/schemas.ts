import { z } from 'zod';
import { PROVIDER_NAMES } from '../../domain/providers.js';

export const parseTaskTextBody = z.object({
  text: z
    .string()
    .min(1)
    .max(2000)
    .meta({ examples: ['Gym every Monday and Thursday 7am for 1h #health p2'] }),
  provider: z
    .enum(PROVIDER_NAMES)
    .optional()
    .describe("who reads the text (default: the caller's effective provider, as for a run)"),
});

const parsedFields = z.object({
  title: z.string().optional(),
  duration_min: z.number().int().optional(),
  priority: z.number().int().optional(),
  deadline_at: z.string().optional(),
  earliest_start_at: z.string().optional(),
  tags: z.array(z.string()).optional(),
  recurrence: z
    .object({
      rule: z.string(),
      window: z.object({ start: z.string(), end: z.string() }).optional(),
      starts_on: z.string().optional(),
    })
    .optional(),
});

export const parseTaskTextResult = z.object({
  fields: parsedFields,
  provider: z.enum(PROVIDER_NAMES),
  model: z.string().nullable(),
  cost_usd: z.number().describe('USD this request spent, rounded to 6 decimals'),
});
