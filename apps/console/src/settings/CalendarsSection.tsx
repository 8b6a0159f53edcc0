import type { Schemas } from '@routinely/api-client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from 'react-aria-components';
import { useSearchParams } from 'react-router';
import { api, data, problemText } from '../api/client.js';
import { keys, useIntegrations } from '../api/queries.js';
import { PROVIDERS } from '../calendar/names.js';
import { Confirm } from '../ui/Confirm.js';
import { CopyButton } from '../ui/CopyButton.js';
import { EmptyState, QueryView } from '../ui/states.js';
import { Outcome, Section } from './Section.js';

type Integration = Schemas['Integration'];
const RETURN_URL = '/settings/calendars';

/** The OAuth callback's error codes (and a sync's last error) in words. */
function connectionErrorText(code: string): string {
  const words: Record<string, string> = {
    access_denied: 'You did not allow Routinely to read the calendar (or the provider refused).',
    invalid_request: 'The provider sent the browser back without an authorisation. Please try again.',
    exchange_failed: 'The provider did not accept the authorisation when Routinely redeemed it. Please try again.',
    invalid_state: 'The connection attempt expired or was already used. Please start it again.',
    invalid_grant: 'The provider withdrew the access: reconnect to keep syncing.',
    provider_unavailable: 'The provider did not answer. Routinely tries again on its own.',
  };
  return words[code] ?? `The provider reported “${code}”.`;
}

const providerName = (provider: string) => PROVIDERS[provider] ?? provider;
const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');

/** Connect Google or Microsoft, see each connection's sync, sync now, reconnect, disconnect. */
export function CalendarsSection() {
  const integrations = useIntegrations();
  const queryClient = useQueryClient();
  const [search] = useSearchParams();
  const returned = search.get('status');
  const connect = useMutation({
    mutationFn: async (provider: 'google' | 'microsoft') =>
      data(
        await api.POST('/api/v1/service/integrations/{provider}/oauth/start', {
          params: { path: { provider } },
          body: { return_url: RETURN_URL },
        }),
      ),
    onSuccess: (answer) => window.location.assign(answer.auth_url),
  });
  const returnedText =
    returned === 'active'
      ? `${providerName(search.get('provider') ?? '')} connected: its events are in your calendar.`
      : undefined;
  const returnedError = returned === 'error' ? connectionErrorText(search.get('error') ?? 'unknown') : undefined;
  return (
    <Section id="calendars" title="Calendars">
      <Outcome error={returnedError} saved={returnedText} />
      <QueryView query={integrations} label="Loading calendar connections" rows={2}>
        {(list) =>
          list.filter((i) => i.status !== 'revoked').length === 0 ? (
            <EmptyState>No calendar connected: plans cannot see your meetings yet.</EmptyState>
          ) : (
            <ul className="task-list">
              {list
                .filter((i) => i.status !== 'revoked')
                .map((i) => (
                  <ConnectionRow
                    key={i.id}
                    integration={i}
                    onChanged={() => {
                      void queryClient.invalidateQueries({ queryKey: keys.integrations });
                      void queryClient.invalidateQueries({ queryKey: keys.events });
                    }}
                  />
                ))}
            </ul>
          )
        }
      </QueryView>
      <Outcome error={connect.isError ? problemText(connect.error) : undefined} />
      <div className="row wrap">
        <Button className="btn" onPress={() => connect.mutate('google')} isDisabled={connect.isPending}>
          Connect Google Calendar
        </Button>
        <Button className="btn" onPress={() => connect.mutate('microsoft')} isDisabled={connect.isPending}>
          Connect Microsoft Outlook
        </Button>
      </div>
    </Section>
  );
}

function ConnectionRow({ integration, onChanged }: { integration: Integration; onChanged(): void }) {
  const [confirm, setConfirm] = useState(false);
  const name = providerName(integration.provider);
  const sync = useMutation({
    mutationFn: async () =>
      data(
        await api.POST('/api/v1/service/integrations/{integration_id}/sync', {
          params: { path: { integration_id: integration.id } },
        }),
      ),
    onSuccess: onChanged,
  });
  const reconnect = useMutation({
    mutationFn: async () =>
      data(
        await api.POST('/api/v1/service/integrations/{integration_id}/reconnect', {
          params: { path: { integration_id: integration.id } },
          body: { return_url: RETURN_URL },
        }),
      ),
    onSuccess: (answer) => window.location.assign(answer.auth_url),
  });
  const disconnect = useMutation({
    mutationFn: async () =>
      data(
        await api.DELETE('/api/v1/service/integrations/{integration_id}', {
          params: { path: { integration_id: integration.id } },
        }),
      ),
    onSuccess: onChanged,
  });
  const failure = sync.error ?? reconnect.error ?? disconnect.error;
  const counts = sync.data;
  return (
    <li className="connection">
      <div className="task-row static">
        <span className="task-row-title">
          {name} <span className="muted small">{integration.account_email ?? ''}</span>
        </span>
        <span className="status" data-status={integration.status}>
          {integration.status}
        </span>
      </div>
      <p className="muted small">
        Last sync: {when(integration.last_synced_at)}
        {integration.last_error ? ` · Last error: ${connectionErrorText(integration.last_error)}` : ''}
      </p>
      <Outcome
        error={failure ? problemText(failure) : undefined}
        saved={
          counts
            ? `Synced: ${counts.fetched} fetched, ${counts.created} new, ${counts.updated} changed, ${counts.deleted} removed.`
            : undefined
        }
      />
      <div className="row wrap">
        <Button
          className="btn btn-small"
          aria-label={`Sync now (${name})`}
          onPress={() => sync.mutate()}
          isDisabled={sync.isPending}
        >
          Sync now
        </Button>
        <Button className="btn btn-small" aria-label={`Reconnect ${name}`} onPress={() => reconnect.mutate()}>
          Reconnect
        </Button>
        <Button className="btn btn-small btn-danger" aria-label={`Disconnect ${name}`} onPress={() => setConfirm(true)}>
          Disconnect
        </Button>
      </div>
      {confirm && (
        <Confirm
          id={`disconnect-${integration.id}`}
          confirmLabel="Yes, disconnect"
          onConfirm={() => disconnect.mutate()}
          onCancel={() => setConfirm(false)}
        >
          Disconnect {name}? Its events leave your calendar and plans stop avoiding them.
        </Confirm>
      )}
    </li>
  );
}

/** The secret `.ics` URL for other calendar apps: made (an earlier one stops working), copied, revoked. */
export function FeedSection() {
  const [url, setUrl] = useState<string | undefined>();
  const create = useMutation({
    mutationFn: async () => data(await api.POST('/api/v1/service/calendar/feed')),
    onSuccess: (answer) => setUrl(answer.url),
  });
  const revoke = useMutation({
    mutationFn: async () => {
      const result = await api.DELETE('/api/v1/service/calendar/feed');
      if (!result.response.ok) data(result);
    },
    onSuccess: () => setUrl(undefined),
  });
  const failure = create.error ?? revoke.error;
  return (
    <Section id="feed" title="Calendar feed">
      <p className="muted">
        Subscribe to your planned tasks from Google, Apple or Outlook calendars. The URL is the key: it is shown once,
        and making a new one stops the old one.
      </p>
      {url && (
        <div className="secret">
          <p>
            Feed URL: <code>{url}</code>
          </p>
          <CopyButton text={url} label="Copy feed URL" />
        </div>
      )}
      <Outcome
        error={failure ? problemText(failure) : undefined}
        saved={revoke.isSuccess ? 'Feed revoked: the old URL no longer works.' : undefined}
      />
      <div className="row wrap">
        <Button className="btn" onPress={() => create.mutate()} isDisabled={create.isPending}>
          Create feed URL
        </Button>
        <Button className="btn btn-danger" onPress={() => revoke.mutate()} isDisabled={revoke.isPending}>
          Revoke feed
        </Button>
      </div>
    </Section>
  );
}
