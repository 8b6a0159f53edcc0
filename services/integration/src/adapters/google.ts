import { z } from 'zod';
import type { IntegrationConfig } from '../config.js';
import { instantOf, zonedWallTimeToUtc } from '../domain/zoned-time.js';
import type { ApiCall, ChangeSet, ProviderAdapter, ProviderChange, PushChannel, SyncWindow } from './adapter.js';
import type { CalendarWriter } from './calendar-writer.js';
import { type HttpOptions, ProviderError, providerFetch, readAnswer } from './http.js';
import { tokenRequest } from './oauth.js';
import { GoogleCalendarWriter } from './write-back-google.js';

/** Calendars this app created, read and write: the least Google scope that lets write-back work (ADR 063). */
const WRITE_SCOPE = 'https://www.googleapis.com/auth/calendar.app.created';
const SCOPES = ['https://www.googleapis.com/auth/calendar.readonly', WRITE_SCOPE, 'openid', 'email'];

// Google's answers, as much of each as we read (events list, events watch, calendarList entry).
const googleTime = z.object({
  date: z.string().nullish(),
  dateTime: z.string().nullish(),
  timeZone: z.string().nullish(),
});
type GoogleTime = z.infer<typeof googleTime>;
const googleEvent = z.object({
  id: z.string(),
  status: z.string().nullish(),
  summary: z.string().nullish(),
  start: googleTime.nullish(),
  end: googleTime.nullish(),
  transparency: z.string().nullish(),
});
type GoogleEvent = z.infer<typeof googleEvent>;
const eventsPage = z.object({
  items: z.array(googleEvent).nullish(),
  timeZone: z.string().nullish(),
  nextPageToken: z.string().nullish(),
  nextSyncToken: z.string().nullish(),
});
const watchAnswer = z.object({
  id: z.string(),
  resourceId: z.string().nullish(),
  /** Milliseconds since the epoch; an int64, which Google sends as a string. */
  expiration: z.union([z.string(), z.number()]).nullish(),
});
const calendarListEntry = z.object({ id: z.string().nullish() });

/** Google Calendar API v3 (primary calendar, read only) and Google's OAuth 2.0 endpoints. */
export class GoogleAdapter implements ProviderAdapter {
  readonly provider = 'google' as const;
  readonly writeScope = WRITE_SCOPE;
  readonly scopes = SCOPES;
  readonly writer: CalendarWriter;

  constructor(
    private readonly config: IntegrationConfig,
    private readonly http: HttpOptions,
  ) {
    this.writer = new GoogleCalendarWriter(`${config.GOOGLE_API_BASE_URL}/calendar/v3`);
  }

  configured(): boolean {
    return Boolean(this.config.GOOGLE_CLIENT_ID);
  }

  private get client() {
    return { id: this.config.GOOGLE_CLIENT_ID ?? '', secret: this.config.GOOGLE_CLIENT_SECRET };
  }

  private api(path: string): string {
    return `${this.config.GOOGLE_API_BASE_URL}/calendar/v3${path}`;
  }

  authUrl(params: { state: string; codeChallenge: string; redirectUri: string }): string {
    const url = new URL(this.config.GOOGLE_AUTH_URL);
    url.search = new URLSearchParams({
      client_id: this.client.id,
      redirect_uri: params.redirectUri,
      response_type: 'code',
      scope: SCOPES.join(' '),
      state: params.state,
      code_challenge: params.codeChallenge,
      code_challenge_method: 'S256',
      access_type: 'offline',
      prompt: 'consent',
      include_granted_scopes: 'true',
    }).toString();
    return url.toString();
  }

  exchangeCode(code: string, verifier: string, redirectUri: string) {
    return tokenRequest(this.http, this.config.GOOGLE_TOKEN_URL, this.client, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: redirectUri,
    });
  }

  refresh(refreshToken: string) {
    return tokenRequest(this.http, this.config.GOOGLE_TOKEN_URL, this.client, {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    });
  }

  async accountEmail(api: ApiCall): Promise<string | null> {
    const response = await api('calendar list', this.api('/users/me/calendarList/primary'));
    const entry = await readAnswer(response, 'calendar list', calendarListEntry);
    return entry.id ?? null;
  }

  async fetchChanges(api: ApiCall, cursor: string | null, window: SyncWindow): Promise<ChangeSet> {
    if (cursor) {
      try {
        return await this.listAll(api, { syncToken: cursor }, false);
      } catch (error) {
        // 410 Gone: the sync token expired; Google asks for a full sync from scratch.
        if (!(error instanceof ProviderError && error.status === 410)) throw error;
      }
    }
    return this.listAll(api, { timeMin: window.from.toISOString(), timeMax: window.to.toISOString() }, true);
  }

  private async listAll(api: ApiCall, start: Record<string, string>, full: boolean): Promise<ChangeSet> {
    const changes: ProviderChange[] = [];
    let pageToken: string | undefined;
    for (;;) {
      const query = new URLSearchParams({ singleEvents: 'true', showDeleted: 'true', maxResults: '250', ...start });
      if (pageToken) query.set('pageToken', pageToken);
      const response = await api('events list', `${this.api('/calendars/primary/events')}?${query}`);
      const page = await readAnswer(response, 'events list', eventsPage);
      for (const item of page.items ?? []) changes.push(toChange(item, page.timeZone ?? undefined));
      if (page.nextPageToken) {
        pageToken = page.nextPageToken;
        continue;
      }
      if (!page.nextSyncToken) throw new Error('events list ended without nextSyncToken');
      return { changes, cursor: page.nextSyncToken, full };
    }
  }

  async openChannel(api: ApiCall, params: { id: string; address: string; secret: string; expiresAt: Date }) {
    const response = await api('events watch', this.api('/calendars/primary/events/watch'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: params.id,
        type: 'web_hook',
        address: params.address,
        token: params.secret,
        params: { ttl: String(Math.round((params.expiresAt.getTime() - this.http.clock.now().getTime()) / 1000)) },
      }),
    });
    const channel = await readAnswer(response, 'events watch', watchAnswer);
    return {
      id: channel.id,
      resourceId: channel.resourceId ?? null,
      expiresAt: channel.expiration ? new Date(Number(channel.expiration)) : params.expiresAt,
    };
  }

  renewChannel(
    api: ApiCall,
    _channel: PushChannel,
    params: { id: string; address: string; secret: string; expiresAt: Date },
  ): Promise<PushChannel> {
    return this.openChannel(api, params);
  }

  async stopChannel(api: ApiCall, channel: PushChannel): Promise<void> {
    await api('channel stop', this.api('/channels/stop'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: channel.id, resourceId: channel.resourceId }),
    });
  }

  async revoke(token: string): Promise<void> {
    await providerFetch(this.http, 'token revoke', this.config.GOOGLE_REVOKE_URL, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }),
    });
  }
}

/** Cancelled items are removals (incremental answers may carry nothing but the id for them). */
function toChange(item: GoogleEvent, calendarZone: string | undefined): ProviderChange {
  if (item.status === 'cancelled' || !item.start || !item.end) return { externalId: item.id, removed: true };
  const allDay = Boolean(item.start.date);
  const read = (t: GoogleTime) =>
    t.date
      ? zonedWallTimeToUtc(t.date, t.timeZone ?? calendarZone)
      : instantOf(t.dateTime ?? '', t.timeZone ?? calendarZone);
  return {
    externalId: item.id,
    removed: false,
    title: item.summary ?? '(no title)',
    start: read(item.start),
    end: read(item.end),
    allDay,
    status: item.status === 'tentative' ? 'tentative' : 'confirmed',
    busy: item.transparency !== 'transparent',
  };
}
