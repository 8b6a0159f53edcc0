import type { Sql } from '@routinely/db';
import type { IntegrationSnapshot } from '@routinely/events';
import { insertNotification } from '../db/notifications-sql.js';

const PROVIDER_NAMES = { google: 'Google Calendar', microsoft: 'Microsoft 365' } as const;

/**
 * A calendar connection that needs the user (the provider refused our grant) becomes a bell notification of
 * kind `integration.reauth_required`. Keyed by the event id, so a redelivered event writes it once.
 */
export async function notifyReauthRequired(
  sql: Sql,
  eventId: string,
  integration: IntegrationSnapshot,
  now: Date,
): Promise<void> {
  const provider = PROVIDER_NAMES[integration.provider];
  await insertNotification(sql, {
    id: eventId,
    tenant_id: integration.tenant_id,
    user_id: integration.user_id,
    kind: 'integration.reauth_required',
    title: `Reconnect ${provider}`,
    body: `${provider}${integration.account_email ? ` (${integration.account_email})` : ''} stopped syncing: connect it again to keep your calendar up to date.`,
    data: {
      integration_id: integration.id,
      provider: integration.provider,
      account_email: integration.account_email,
      last_error: integration.last_error,
    },
    delivery_id: null,
    created_at: now,
  });
}
