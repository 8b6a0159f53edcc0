import { z } from 'zod';

/** Graph change notifications: only what we check; the rest of an item is ignored (never trusted). */
export const graphNotifications = z.object({
  value: z
    .array(z.object({ subscriptionId: z.string().min(1), clientState: z.string().optional() }))
    .min(1)
    .max(1000),
});
