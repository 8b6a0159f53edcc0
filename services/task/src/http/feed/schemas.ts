import { z } from 'zod';

export const feedCreated = z.object({
  url: z.url().meta({ examples: ['https://routinely.example/api/v1/service/calendar/feed/<token>.ics'] }),
  created_at: z.string(),
});
export const feedRevoked = z.null().describe('Revoked (also when there was none)');
