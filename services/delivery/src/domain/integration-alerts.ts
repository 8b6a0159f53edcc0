import type { EntityManager } from '@routinely/db';
import type { IntegrationSnapshot } from '@routinely/events';

const PROVIDER_NAMES = { google: 'Google Calendar', microsoft: 'Microsoft 365' } as const;

/**
 * A calendar connection that needs the user (the provider refused our grant) becomes a bell notification of
 * kind `integration.reauth_required`. Keyed by the event id, so a redelivered event writes it once.
 */
export async function notifyReauthRequired(
  em: EntityManager,
  eventId: string,
  integration: IntegrationSnapshot,
  now: Date,
): Promise<void> {
  const provider = PROVIDER_NAMES[integration.provider];
  await em.getConnection().execute(
    `insert into notifications (id, tenant_id, user_id, kind, title, body, data, delivery_id, read_at, created_at)
     values (?, ?, ?, 'integration.reauth_required', ?, ?, ?, null, null, ?) on conflict (id) do nothing`,
    [
      eventId,
      integration.tenant_id,
      integration.user_id,
      `Reconnect ${provider}`,
      `${provider}${integration.account_email ? ` (${integration.account_email})` : ''} stopped syncing: connect it again to keep your calendar up to date.`,
      JSON.stringify({
        integration_id: integration.id,
        provider: integration.provider,
        account_email: integration.account_email,
        last_error: integration.last_error,
      }),
      now,
    ],
    'run',
    em.getTransactionContext(),
  );
}
