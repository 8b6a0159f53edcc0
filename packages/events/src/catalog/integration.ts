import { z } from 'zod';
import { defineEvent } from '../envelope.js';

export const calendarProvider = z.enum(['google', 'microsoft']);

/**
 * An event of a connected provider calendar as the unified calendar needs it. `id` is ours (stable per
 * integration and external id); `start`/`end` are UTC ISO instants (all-day events: midnight to midnight of the
 * user's zone as the provider stated them); `busy` is false for events the provider marks free (Google
 * `transparency: transparent`, Microsoft `showAs: free`). `version` grows with every change the integration
 * service writes, so a consumer can ignore an older copy that arrives late.
 */
export const externalEventSnapshot = z.object({
  id: z.string().uuid(),
  integration_id: z.string().uuid(),
  provider: calendarProvider,
  external_id: z.string(),
  title: z.string(),
  start: z.string(),
  end: z.string(),
  all_day: z.boolean(),
  status: z.enum(['confirmed', 'tentative', 'cancelled']),
  busy: z.boolean(),
  version: z.number().int().nonnegative(),
  updated_at: z.string(),
});
export type ExternalEventSnapshot = z.infer<typeof externalEventSnapshot>;

export const integrationSnapshot = z.object({
  id: z.string().uuid(),
  tenant_id: z.string(),
  user_id: z.string(),
  provider: calendarProvider,
  status: z.enum(['pending', 'active', 'error', 'revoked']),
  account_email: z.string().nullable(),
  last_error: z.string().nullable(),
  updated_at: z.string(),
});
export type IntegrationSnapshot = z.infer<typeof integrationSnapshot>;

/**
 * Events of the integration service (subjects integration.<entity>.<verb>). The task service keeps the unified
 * calendar from the event ones; the delivery service tells the user in the bell when a connection needs
 * re-authorisation; a revoked integration's events leave the unified calendar.
 */
export const integrationEvents = {
  eventUpserted: defineEvent('integration.event.upserted', z.object({ event: externalEventSnapshot })),
  eventDeleted: defineEvent('integration.event.deleted', z.object({ event: externalEventSnapshot })),
  integrationConnected: defineEvent(
    'integration.integration.connected',
    z.object({ integration: integrationSnapshot }),
  ),
  integrationFailed: defineEvent(
    'integration.integration.failed',
    z.object({ integration: integrationSnapshot, reauth_required: z.boolean() }),
  ),
  integrationRevoked: defineEvent('integration.integration.revoked', z.object({ integration: integrationSnapshot })),
};
