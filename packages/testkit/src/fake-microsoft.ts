import { randomBytes } from 'node:crypto';
import { type Deliver, FakeOAuthCore, fetchDeliver } from './fake-calendar-oauth.js';
import { registerMicrosoftWrites } from './fake-microsoft-writes.js';
import { WrittenCalendars } from './fake-written-calendars.js';

export interface FakeGraphEvent {
  id: string;
  subject: string;
  /** Graph's offset-less wall time in the named zone (Windows or IANA name). */
  start: { dateTime: string; timeZone: string };
  end: { dateTime: string; timeZone: string };
  isAllDay?: boolean;
  isCancelled?: boolean;
  showAs?: 'free' | 'tentative' | 'busy' | 'oof' | 'workingElsewhere';
}
type EventInput = Omit<FakeGraphEvent, 'id'> & { id?: string };
interface Subscription {
  id: string;
  resource: string;
  changeType: string;
  notificationUrl: string;
  clientState?: string;
  expirationDateTime: string;
}

const graphError = (code: string, message: string) => ({ error: { code, message } });
const unauthorized = () => graphError('InvalidAuthenticationToken', 'Access token has expired or is not yet valid.');
/** Wall times compared as if UTC: good enough to decide window overlap in a fake. */
const wall = (t: { dateTime: string }) => Date.parse(`${t.dateTime.slice(0, 19)}Z`);

/**
 * The Microsoft identity platform (v2.0 authorize/token under an authority) and Microsoft Graph: /me,
 * /me/calendarView/delta (startDateTime/endDateTime, @odata.nextLink paging to an @odata.deltaLink, @removed
 * entries, 410 syncStateNotFound) and /subscriptions with the validation handshake, renewal and removal.
 */
export class FakeMicrosoft extends FakeOAuthCore {
  email = 'person@contoso.test';
  pageSize = 2;
  readonly subscriptions = new Map<string, Subscription>();
  private readonly events = new Map<string, { event: FakeGraphEvent; seq: number; removed: boolean }>();
  private seq = 0;
  private generation = 1;
  private readonly pages = new Map<string, { rest: unknown[]; deltaToken: string }>();
  deliver: Deliver = fetchDeliver;
  /** The secondary calendars clients created and what they wrote into them (calendar write-back). */
  readonly written = new WrittenCalendars();

  static async start(options: { clientId?: string; clientSecret?: string; deliver?: Deliver } = {}) {
    const fake = new FakeMicrosoft(options);
    fake.rotateRefreshTokens = true;
    if (options.deliver) fake.deliver = options.deliver;
    fake.registerRoutes();
    await fake.listen();
    return fake;
  }

  get authority(): string {
    return `${this.baseUrl}/common`;
  }

  get graphUrl(): string {
    return `${this.baseUrl}/v1.0`;
  }

  env(): Record<string, string> {
    return {
      MICROSOFT_CLIENT_ID: this.clientId,
      MICROSOFT_CLIENT_SECRET: this.clientSecret,
      MICROSOFT_AUTHORITY_URL: this.authority,
      MICROSOFT_GRAPH_URL: this.graphUrl,
    };
  }

  addEvent(input: EventInput): FakeGraphEvent {
    const id = input.id ?? `AAMk${randomBytes(8).toString('hex')}`;
    const event = { showAs: 'busy' as const, ...input, id };
    this.events.set(id, { event, seq: ++this.seq, removed: false });
    return event;
  }

  changeEvent(id: string, patch: Partial<EventInput>): FakeGraphEvent {
    const current = this.events.get(id);
    if (!current) throw new Error(`no fake Graph event ${id}`);
    const event = { ...current.event, ...patch, id };
    this.events.set(id, { event, seq: ++this.seq, removed: false });
    return event;
  }

  cancelEvent(id: string): void {
    this.changeEvent(id, { isCancelled: true });
  }

  /** Deleted: the next delta names it in an `@removed` entry. */
  removeEvent(id: string): void {
    const current = this.events.get(id);
    if (!current) throw new Error(`no fake Graph event ${id}`);
    this.events.set(id, { ...current, seq: ++this.seq, removed: true });
  }

  /** Every delta token issued so far answers 410 syncStateNotFound. */
  expireDeltaTokens(): void {
    this.generation += 1;
  }

  /** A change notification to every subscription (optionally with another clientState). */
  async notify(override: { clientState?: string } = {}): Promise<number[]> {
    const statuses: number[] = [];
    for (const sub of this.subscriptions.values()) {
      const body = JSON.stringify({
        value: [
          {
            subscriptionId: sub.id,
            subscriptionExpirationDateTime: sub.expirationDateTime,
            changeType: 'updated',
            resource: `Users/${this.email}/Events/x`,
            clientState: override.clientState ?? sub.clientState,
            tenantId: 'fake-tenant',
          },
        ],
      });
      const answer = await this.deliver(sub.notificationUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      statuses.push(answer.status);
    }
    return statuses;
  }

  /** Registers the provider routes (before `listen`; `start` does both). */
  registerRoutes(): void {
    const app = this.app;
    registerMicrosoftWrites(this, this.written);
    // Scripting for people trying the flow by hand (see README, "Calendar integrations locally").
    app.post('/_fake/events', (request) => this.addEvent(request.body as EventInput));
    app.post('/_fake/notify', async () => ({ statuses: await this.notify() }));
    app.get('/common/oauth2/v2.0/authorize', (request, reply) => {
      const query = request.query as Record<string, string | undefined>;
      return this.authorize(query, reply, () => (query.scope ?? '').split(' ').includes('offline_access'));
    });
    app.post('/common/oauth2/v2.0/token', (request, reply) =>
      this.token(request.body as Record<string, string>, reply),
    );

    app.get('/v1.0/me', (request, reply) => {
      if (!this.guard(request, reply, unauthorized)) return reply;
      return { id: 'fake-user-id', displayName: 'Fake Person', mail: this.email, userPrincipalName: this.email };
    });

    app.get('/v1.0/me/calendarView/delta', (request, reply) => {
      if (!this.guard(request, reply, unauthorized)) return reply;
      const q = request.query as Record<string, string>;
      const preferred = /odata\.maxpagesize=(\d+)/.exec(String(request.headers.prefer ?? ''));
      const size = Math.min(this.pageSize, Number(preferred?.[1] ?? this.pageSize));
      if (q.$skiptoken) {
        const page = this.pages.get(q.$skiptoken);
        if (!page) return reply.status(400).send(graphError('InvalidRequest', 'Bad skip token'));
        this.pages.delete(q.$skiptoken);
        return this.page(page.rest, page.deltaToken, size);
      }
      if (q.$deltatoken) {
        const [, generation, seq] = /^d(\d+)-(\d+)$/.exec(q.$deltatoken) ?? [];
        if (Number(generation) !== this.generation) {
          return reply.status(410).send(graphError('syncStateNotFound', 'The sync state is no longer valid.'));
        }
        const changed = [...this.events.values()]
          .filter((e) => e.seq > Number(seq))
          .map((e) => (e.removed ? { id: e.event.id, '@removed': { reason: 'deleted' } } : e.event));
        return this.page(changed, this.deltaToken(), size);
      }
      if (!q.startDateTime || !q.endDateTime) {
        return reply
          .status(400)
          .send(graphError('ErrorInvalidParameter', 'startDateTime and endDateTime are required'));
      }
      const min = Date.parse(q.startDateTime);
      const max = Date.parse(q.endDateTime);
      const all = [...this.events.values()]
        .filter((e) => !e.removed && !e.event.isCancelled)
        .map((e) => e.event)
        .filter((e) => wall(e.end) > min && wall(e.start) < max);
      return this.page(all, this.deltaToken(), size);
    });

    app.post('/v1.0/subscriptions', async (request, reply) => {
      if (!this.guard(request, reply, unauthorized)) return reply;
      const body = request.body as Partial<Subscription>;
      if (
        !body?.notificationUrl?.startsWith('http') ||
        !body.resource ||
        !body.changeType ||
        !body.expirationDateTime
      ) {
        return reply.status(400).send(graphError('InvalidRequest', 'Missing subscription fields'));
      }
      // The validation handshake: Graph POSTs a validationToken and wants it echoed as text/plain.
      const validationToken = `Validation: ${randomBytes(12).toString('hex')}`;
      const url = new URL(body.notificationUrl);
      url.searchParams.set('validationToken', validationToken);
      const answer = await this.deliver(url.toString(), {
        method: 'POST',
        headers: { 'content-type': 'text/plain; charset=utf-8' },
      }).catch(() => ({ status: 0, text: '' }));
      if (answer.status !== 200 || answer.text !== validationToken) {
        return reply
          .status(400)
          .send(
            graphError(
              'InvalidRequest',
              'Subscription validation request failed. Response must exactly match validationToken query parameter.',
            ),
          );
      }
      const sub: Subscription = {
        id: randomBytes(16).toString('hex'),
        resource: body.resource,
        changeType: body.changeType,
        notificationUrl: body.notificationUrl,
        ...(body.clientState ? { clientState: body.clientState } : {}),
        expirationDateTime: body.expirationDateTime,
      };
      this.subscriptions.set(sub.id, sub);
      return reply.status(201).send(sub);
    });

    app.patch('/v1.0/subscriptions/:id', (request, reply) => {
      if (!this.guard(request, reply, unauthorized)) return reply;
      const sub = this.subscriptions.get((request.params as { id: string }).id);
      if (!sub) return reply.status(404).send(graphError('ResourceNotFound', 'Subscription not found'));
      const body = request.body as { expirationDateTime?: string };
      if (body?.expirationDateTime) sub.expirationDateTime = body.expirationDateTime;
      return sub;
    });

    app.delete('/v1.0/subscriptions/:id', (request, reply) => {
      if (!this.guard(request, reply, unauthorized)) return reply;
      if (!this.subscriptions.delete((request.params as { id: string }).id)) {
        return reply.status(404).send(graphError('ResourceNotFound', 'Subscription not found'));
      }
      return reply.status(204).send();
    });
  }

  private deltaToken(): string {
    return `d${this.generation}-${this.seq}`;
  }

  private page(items: unknown[], deltaToken: string, size: number) {
    const head = items.slice(0, size);
    const rest = items.slice(size);
    const base = `${this.graphUrl}/me/calendarView/delta`;
    if (rest.length === 0) return { value: head, '@odata.deltaLink': `${base}?$deltatoken=${deltaToken}` };
    const skip = randomBytes(8).toString('hex');
    this.pages.set(skip, { rest, deltaToken });
    return { value: head, '@odata.nextLink': `${base}?$skiptoken=${skip}` };
  }
}
