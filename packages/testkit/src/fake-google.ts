import { randomBytes } from 'node:crypto';
import { type Deliver, FakeOAuthCore, fetchDeliver } from './fake-calendar-oauth.js';
import { registerGoogleWrites } from './fake-google-writes.js';
import { WrittenCalendars } from './fake-written-calendars.js';

type GoogleTime = { dateTime: string; timeZone?: string } | { date: string };
export interface FakeGoogleEvent {
  id: string;
  status: 'confirmed' | 'tentative' | 'cancelled';
  summary?: string;
  start: GoogleTime;
  end: GoogleTime;
  transparency?: 'opaque' | 'transparent';
  updated: string;
}
type EventInput = Omit<FakeGoogleEvent, 'id' | 'status' | 'updated'> & Partial<Pick<FakeGoogleEvent, 'id' | 'status'>>;

const unauthorized = () => ({
  error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' },
});
const startOf = (t: GoogleTime) => ('date' in t ? Date.parse(`${t.date}T00:00:00Z`) : Date.parse(t.dateTime));

/**
 * Google OAuth 2.0 and Calendar API v3 (primary calendar) speaking the real protocol: events.list with
 * singleEvents/showDeleted/timeMin/timeMax, pageToken paging and nextSyncToken, 410 for an expired sync token,
 * events.watch and channels.stop, calendarList/primary, and the revoke endpoint. Scriptable: add, change and
 * cancel events, expire tokens, invalid_grant, throttling, sync-token expiry, push notifications.
 */
export class FakeGoogle extends FakeOAuthCore {
  email = 'person@gmail.test';
  calendarTimeZone = 'Europe/Berlin';
  /** Items per events.list page (Google's maxResults caps it further). */
  pageSize = 2;
  readonly channels = new Map<
    string,
    { id: string; resourceId: string; address: string; token?: string; expiration: number }
  >();
  readonly listCalls: Record<string, string>[] = [];
  private readonly events = new Map<string, { event: FakeGoogleEvent; seq: number }>();
  private seq = 0;
  /** Sync tokens carry the generation they were issued in; expiring them moves to the next one. */
  private generation = 1;
  private readonly pages = new Map<string, { rest: FakeGoogleEvent[]; syncToken: string }>();
  deliver: Deliver = fetchDeliver;
  /** The secondary calendars clients created and what they wrote into them (calendar write-back). */
  readonly written = new WrittenCalendars();

  static async start(
    options: { clientId?: string; clientSecret?: string; deliver?: Deliver } = {},
  ): Promise<FakeGoogle> {
    const fake = new FakeGoogle(options);
    if (options.deliver) fake.deliver = options.deliver;
    fake.registerRoutes();
    await fake.listen();
    return fake;
  }

  /** The integration service's environment pointing at this fake. */
  env(): Record<string, string> {
    return {
      GOOGLE_CLIENT_ID: this.clientId,
      GOOGLE_CLIENT_SECRET: this.clientSecret,
      GOOGLE_AUTH_URL: `${this.baseUrl}/o/oauth2/v2/auth`,
      GOOGLE_TOKEN_URL: `${this.baseUrl}/token`,
      GOOGLE_REVOKE_URL: `${this.baseUrl}/revoke`,
      GOOGLE_API_BASE_URL: this.baseUrl,
    };
  }

  addEvent(input: EventInput): FakeGoogleEvent {
    const id = input.id ?? `g${randomBytes(6).toString('hex')}`;
    const event: FakeGoogleEvent = { status: 'confirmed', ...input, id, updated: new Date().toISOString() };
    this.events.set(id, { event, seq: ++this.seq });
    return event;
  }

  changeEvent(id: string, patch: Partial<EventInput>): FakeGoogleEvent {
    const current = this.events.get(id);
    if (!current) throw new Error(`no fake Google event ${id}`);
    const event = { ...current.event, ...patch, id, updated: new Date().toISOString() };
    this.events.set(id, { event, seq: ++this.seq });
    return event;
  }

  cancelEvent(id: string): void {
    this.changeEvent(id, { status: 'cancelled' });
  }

  /** Every sync token issued so far answers 410 Gone (fullSyncRequired). */
  expireSyncTokens(): void {
    this.generation += 1;
  }

  /** Sends a push to every open channel, as Google does after a change; answers the receivers' statuses. */
  async notify(override: { token?: string; state?: 'sync' | 'exists' } = {}): Promise<number[]> {
    const statuses: number[] = [];
    let n = 0;
    for (const channel of this.channels.values()) {
      const headers: Record<string, string> = {
        'x-goog-channel-id': channel.id,
        'x-goog-resource-id': channel.resourceId,
        'x-goog-resource-state': override.state ?? 'exists',
        'x-goog-message-number': String(++n),
        'x-goog-resource-uri': `${this.baseUrl}/calendar/v3/calendars/primary/events`,
      };
      const token = override.token ?? channel.token;
      if (token !== undefined) headers['x-goog-channel-token'] = token;
      statuses.push((await this.deliver(channel.address, { method: 'POST', headers })).status);
    }
    return statuses;
  }

  /** Registers the provider routes (before `listen`; `start` does both). */
  registerRoutes(): void {
    const app = this.app;
    registerGoogleWrites(this, this.written);
    // Scripting for people trying the flow by hand (see README, "Calendar integrations locally").
    app.post('/_fake/events', (request) => this.addEvent(request.body as EventInput));
    app.post('/_fake/notify', async () => ({ statuses: await this.notify() }));
    app.get('/o/oauth2/v2/auth', (request, reply) => {
      const query = request.query as Record<string, string | undefined>;
      return this.authorize(query, reply, () => query.access_type === 'offline');
    });
    app.post('/token', (request, reply) => this.token(request.body as Record<string, string>, reply));
    app.post('/revoke', (request, reply) => {
      const form = {
        ...(request.query as Record<string, string>),
        ...((request.body as Record<string, string>) ?? {}),
      };
      if (!form.token || !this.revoke(form.token)) return reply.status(400).send({ error: 'invalid_token' });
      return reply.send({});
    });

    app.get('/calendar/v3/users/me/calendarList/primary', (request, reply) => {
      if (!this.guard(request, reply, unauthorized)) return reply;
      return {
        kind: 'calendar#calendarListEntry',
        id: this.email,
        summary: this.email,
        timeZone: this.calendarTimeZone,
        primary: true,
      };
    });

    app.get('/calendar/v3/calendars/primary/events', (request, reply) => {
      if (!this.guard(request, reply, unauthorized)) return reply;
      const q = request.query as Record<string, string>;
      this.listCalls.push(q);
      if (q.pageToken) {
        const page = this.pages.get(q.pageToken);
        if (!page) return reply.status(400).send({ error: { code: 400, message: 'Invalid page token' } });
        this.pages.delete(q.pageToken);
        return this.page(page.rest, page.syncToken);
      }
      if (q.syncToken) {
        if (q.timeMin || q.timeMax)
          return reply.status(400).send({ error: { code: 400, message: 'syncToken with timeMin' } });
        const [, generation, seq] = /^sync-(\d+)-(\d+)$/.exec(q.syncToken) ?? [];
        const since = Number(seq);
        if (Number(generation) !== this.generation || !Number.isInteger(since)) {
          return reply.status(410).send({
            error: {
              code: 410,
              message: 'Sync token is no longer valid, a full sync is required.',
              errors: [{ domain: 'calendar', reason: 'fullSyncRequired' }],
            },
          });
        }
        const changed = [...this.events.values()].filter((e) => e.seq > since).map((e) => e.event);
        return this.page(
          q.showDeleted === 'true' ? changed : changed.filter((e) => e.status !== 'cancelled'),
          this.syncToken(),
        );
      }
      const min = q.timeMin ? Date.parse(q.timeMin) : Number.NEGATIVE_INFINITY;
      const max = q.timeMax ? Date.parse(q.timeMax) : Number.POSITIVE_INFINITY;
      const all = [...this.events.values()]
        .map((e) => e.event)
        .filter((e) => startOf(e.end) > min && startOf(e.start) < max)
        .filter((e) => q.showDeleted === 'true' || e.status !== 'cancelled')
        .sort((a, b) => startOf(a.start) - startOf(b.start));
      return this.page(all, this.syncToken());
    });

    app.post('/calendar/v3/calendars/primary/events/watch', (request, reply) => {
      if (!this.guard(request, reply, unauthorized)) return reply;
      const body = request.body as {
        id?: string;
        type?: string;
        address?: string;
        token?: string;
        params?: { ttl?: string };
      };
      if (!body?.id || body.type !== 'web_hook' || !body.address?.startsWith('http')) {
        return reply.status(400).send({ error: { code: 400, message: 'Invalid channel' } });
      }
      const ttl = Number(body.params?.ttl ?? 604_800);
      const channel = {
        id: body.id,
        resourceId: `res-${randomBytes(6).toString('hex')}`,
        address: body.address,
        ...(body.token ? { token: body.token } : {}),
        expiration: Date.now() + Math.min(ttl, 604_800) * 1000,
      };
      this.channels.set(channel.id, channel);
      return {
        kind: 'api#channel',
        id: channel.id,
        resourceId: channel.resourceId,
        resourceUri: 'primary',
        expiration: String(channel.expiration),
      };
    });

    app.post('/calendar/v3/channels/stop', (request, reply) => {
      if (!this.guard(request, reply, unauthorized)) return reply;
      const body = request.body as { id?: string; resourceId?: string };
      const channel = body?.id ? this.channels.get(body.id) : undefined;
      if (!channel || channel.resourceId !== body.resourceId)
        return reply.status(404).send({ error: { code: 404, message: 'Channel not found' } });
      this.channels.delete(channel.id);
      return reply.status(204).send();
    });
  }

  private syncToken(): string {
    return `sync-${this.generation}-${this.seq}`;
  }

  /** The first page of `items`; the rest is kept behind a nextPageToken, the sync token comes with the last page. */
  private page(items: FakeGoogleEvent[], syncToken: string) {
    const head = items.slice(0, this.pageSize);
    const rest = items.slice(this.pageSize);
    const base = { kind: 'calendar#events', summary: this.email, timeZone: this.calendarTimeZone, items: head };
    if (rest.length === 0) return { ...base, nextSyncToken: syncToken };
    const pageToken = `page-${randomBytes(8).toString('hex')}`;
    this.pages.set(pageToken, { rest, syncToken });
    return { ...base, nextPageToken: pageToken };
  }
}
