import { capturedTaskFields } from '@routinely/scheduling';
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

export const parseTaskTextResult = z.object({
  fields: capturedTaskFields.describe('what the text says, each field a value `POST /tasks` accepts'),
  provider: z.enum(PROVIDER_NAMES),
  model: z.string().nullable(),
  cost_usd: z.number().describe('USD this request spent, rounded to 6 decimals'),
});
