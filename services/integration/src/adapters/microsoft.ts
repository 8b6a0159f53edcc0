import { z } from 'zod';
import type { IntegrationConfig } from '../config.js';
import { instantOf, UnknownTimeZone } from '../domain/zoned-time.js';
import type { ApiCall, ChangeSet, ProviderAdapter, ProviderChange, PushChannel, SyncWindow } from './adapter.js';
import type { CalendarWriter } from './calendar-writer.js';
import { type HttpOptions, ProviderError, readAnswer } from './http.js';
import { tokenRequest } from './oauth.js';
import { MicrosoftCalendarWriter } from './write-back-microsoft.js';

/** Read and write of the user's calendars: the least Graph scope that lets write-back work (ADR 063). */
const WRITE_SCOPE = 'Calendars.ReadWrite';
const SCOPES = ['offline_access', 'User.Read', WRITE_SCOPE];

// Graph's answers, as much of each as we read (/me, calendarView delta, subscriptions).
const graphTime = z.object({ dateTime: z.string(), timeZone: z.string().nullish() });
const graphEvent = z.object({
  id: z.string(),
  '@removed': z.object({ reason: z.string().nullish() }).nullish(),
  subject: z.string().nullish(),
  start: graphTime.nullish(),
  end: graphTime.nullish(),
  isAllDay: z.boolean().nullish(),
  isCancelled: z.boolean().nullish(),
  showAs: z.string().nullish(),
});
type GraphEvent = z.infer<typeof graphEvent>;
const deltaPage = z.object({
  value: z.array(graphEvent).nullish(),
  '@odata.nextLink': z.string().nullish(),
  '@odata.deltaLink': z.string().nullish(),
});
const me = z.object({ mail: z.string().nullish(), userPrincipalName: z.string().nullish() });
const subscriptionCreated = z.object({ id: z.string(), expirationDateTime: z.string().nullish() });
const subscriptionRenewed = z.object({ expirationDateTime: z.string().nullish() });

/** Microsoft identity platform (v2.0 endpoints) and Microsoft Graph calendarView delta and subscriptions. */
export class MicrosoftAdapter implements ProviderAdapter {
  readonly provider = 'microsoft' as const;
  readonly writeScope = WRITE_SCOPE;
  readonly scopes = SCOPES;
  readonly writer: CalendarWriter;

  constructor(
    private readonly config: IntegrationConfig,
    private readonly http: HttpOptions,
  ) {
    this.writer = new MicrosoftCalendarWriter(config.MICROSOFT_GRAPH_URL);
  }

  configured(): boolean {
    return Boolean(this.config.MICROSOFT_CLIENT_ID);
  }

  private get client() {
    return { id: this.config.MICROSOFT_CLIENT_ID ?? '', secret: this.config.MICROSOFT_CLIENT_SECRET };
  }

  private get tokenUrl() {
    return `${this.config.MICROSOFT_AUTHORITY_URL}/oauth2/v2.0/token`;
  }

  authUrl(params: { state: string; codeChallenge: string; redirectUri: string }): string {
    const url = new URL(`${this.config.MICROSOFT_AUTHORITY_URL}/oauth2/v2.0/authorize`);
    url.search = new URLSearchParams({
      client_id: this.client.id,
      redirect_uri: params.redirectUri,
      response_type: 'code',
      response_mode: 'query',
      scope: SCOPES.join(' '),
      state: params.state,
      code_challenge: params.codeChallenge,
      code_challenge_method: 'S256',
    }).toString();
    return url.toString();
  }

  exchangeCode(code: string, verifier: string, redirectUri: string) {
    return tokenRequest(this.http, this.tokenUrl, this.client, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: redirectUri,
      scope: SCOPES.join(' '),
    });
  }

  refresh(refreshToken: string) {
    return tokenRequest(this.http, this.tokenUrl, this.client, {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      scope: SCOPES.join(' '),
    });
  }

  async accountEmail(api: ApiCall): Promise<string | null> {
    const user = await readAnswer(await api('me', `${this.config.MICROSOFT_GRAPH_URL}/me`), 'me', me);
    return user.mail ?? user.userPrincipalName ?? null;
  }

  async fetchChanges(api: ApiCall, cursor: string | null, window: SyncWindow): Promise<ChangeSet> {
    if (cursor) {
      try {
        return await this.follow(api, this.graphLink(cursor), false);
      } catch (error) {
        // 410 (syncStateNotFound / resyncRequired): the delta token is no longer valid; start over.
        if (!(error instanceof ProviderError && error.status === 410)) throw error;
      }
    }
    const query = new URLSearchParams({
      startDateTime: window.from.toISOString(),
      endDateTime: window.to.toISOString(),
    });
    return this.follow(api, `${this.config.MICROSOFT_GRAPH_URL}/me/calendarView/delta?${query}`, true);
  }

  /** Links come from the provider's answers: they are followed only on the configured Graph origin. */
  private graphLink(link: string): string {
    if (new URL(link).origin !== new URL(this.config.MICROSOFT_GRAPH_URL).origin) {
      throw new Error('Graph link outside the configured Graph origin');
    }
    return link;
  }

  private async follow(api: ApiCall, first: string, full: boolean): Promise<ChangeSet> {
    const changes: ProviderChange[] = [];
    const unreadable: string[] = [];
    let url = first;
    for (;;) {
      // Asking for UTC keeps Graph on zones we can read; each time is still read with the timeZone it names.
      const response = await api('calendarView delta', url, {
        headers: { prefer: 'odata.maxpagesize=100, outlook.timezone="UTC"' },
      });
      const page = await readAnswer(response, 'calendarView delta', deltaPage);
      for (const item of page.value ?? []) {
        try {
          changes.push(toChange(item));
        } catch (error) {
          // One event in a zone we cannot map must not stop the calendar from syncing.
          if (!(error instanceof UnknownTimeZone)) throw error;
          unreadable.push(item.id);
        }
      }
      const next = page['@odata.nextLink'];
      if (next) {
        url = this.graphLink(next);
        continue;
      }
      const delta = page['@odata.deltaLink'];
      if (!delta) throw new Error('calendarView delta ended without a deltaLink');
      return { changes, cursor: this.graphLink(delta), full, unreadable };
    }
  }

  async openChannel(api: ApiCall, params: { id: string; address: string; secret: string; expiresAt: Date }) {
    const response = await api('subscription create', `${this.config.MICROSOFT_GRAPH_URL}/subscriptions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        changeType: 'created,updated,deleted',
        notificationUrl: params.address,
        resource: 'me/events',
        expirationDateTime: params.expiresAt.toISOString(),
        clientState: params.secret,
      }),
    });
    const sub = await readAnswer(response, 'subscription create', subscriptionCreated);
    return {
      id: sub.id,
      resourceId: null,
      expiresAt: sub.expirationDateTime ? new Date(sub.expirationDateTime) : params.expiresAt,
    };
  }

  async renewChannel(api: ApiCall, channel: PushChannel, params: { expiresAt: Date }): Promise<PushChannel> {
    const url = `${this.config.MICROSOFT_GRAPH_URL}/subscriptions/${encodeURIComponent(channel.id)}`;
    const response = await api('subscription renew', url, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ expirationDateTime: params.expiresAt.toISOString() }),
    });
    const sub = await readAnswer(response, 'subscription renew', subscriptionRenewed);
    return { ...channel, expiresAt: sub.expirationDateTime ? new Date(sub.expirationDateTime) : params.expiresAt };
  }

  async stopChannel(api: ApiCall, channel: PushChannel): Promise<void> {
    await api(
      'subscription delete',
      `${this.config.MICROSOFT_GRAPH_URL}/subscriptions/${encodeURIComponent(channel.id)}`,
      {
        method: 'DELETE',
      },
    );
  }

  async revoke(): Promise<void> {
    // The identity platform has no per-grant revocation endpoint for a client; dropping the tokens is all.
  }
}

function toChange(item: GraphEvent): ProviderChange {
  if (item['@removed'] || item.isCancelled || !item.start || !item.end) return { externalId: item.id, removed: true };
  return {
    externalId: item.id,
    removed: false,
    title: item.subject ?? '(no title)',
    start: instantOf(item.start.dateTime, item.start.timeZone ?? undefined),
    end: instantOf(item.end.dateTime, item.end.timeZone ?? undefined),
    allDay: Boolean(item.isAllDay),
    status: item.showAs === 'tentative' ? 'tentative' : 'confirmed',
    busy: item.showAs !== 'free',
  };
}
