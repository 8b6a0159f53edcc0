import { z } from 'zod';
import { defineEvent } from '../envelope.js';

/** Events of the scheduler service (subjects scheduler.<entity>.<verb>). */
export const schedulerEvents = {
  /**
   * A user's spend of one local day reached the soft cap: at most one per user and local day. The delivery
   * service turns it into a `quota.soft_breached` bell notification.
   */
  quotaSoftBreached: defineEvent(
    'scheduler.quota.soft_breached',
    z.object({
      user_id: z.string().uuid(),
      tenant_id: z.string(),
      date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
      timezone: z.string(),
      daily_usd: z.number().nonnegative(),
      soft_cap_usd: z.number().nonnegative(),
      hard_cap_usd: z.number().nonnegative(),
    }),
  ),
};
