import type { TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, sqlRows, startHarness } from './harness.js';

// The server's own zone is not UTC here: offset-less Graph times must still be read in their own timeZone.
process.env.TZ = 'America/New_York';

let h: Harness;
let user: TestUser;
let id = '';
beforeAll(async () => {
  h = await startHarness();
  user = h.tokens.user();
});
afterAll(() => h?.close());

const sync = () => h.call(user, 'POST', `/service/integrations/${id}/sync`);
const integration = async () => (await h.call(user, 'GET', '/service/integrations')).json()[0];
const rows = async () =>
  (
    await sqlRows<{
      external_id: string;
      start_at: string;
      end_at: string;
      busy: boolean;
      status: string;
      version: number;
    }>(h.orm, 'select * from external_events where integration_id = ? order by external_id', [id])
  ).map((r) => ({ ...r, start: new Date(r.start_at).toISOString(), end: new Date(r.end_at).toISOString() }));

const at = (dateTime: string, timeZone: string) => ({ dateTime, timeZone });

describe('Microsoft: connect, delta sync, push, refresh, reauth, disconnect (server TZ America/New_York)', () => {
  it('runs in a non-UTC process zone', () => {
    expect(new Date('2026-11-21T12:00:00.000Z').getHours()).toBe(7);
  });

  it('connects with offline_access, follows nextLink to the deltaLink and reads times in their timeZone', async () => {
    const m = h.microsoft;
    m.addEvent({
      id: 'm1',
      subject: 'Sync',
      start: at('2026-11-23T09:00:00.0000000', 'Pacific Standard Time'),
      end: at('2026-11-23T09:30:00.0000000', 'Pacific Standard Time'),
    });
    m.addEvent({
      id: 'm2',
      subject: 'Tokyo call',
      start: at('2026-11-24T09:00:00.0000000', 'Tokyo Standard Time'),
      end: at('2026-11-24T10:00:00.0000000', 'Tokyo Standard Time'),
    });
    m.addEvent({
      id: 'm3',
      subject: 'Offsite',
      isAllDay: true,
      start: at('2026-11-26T00:00:00.0000000', 'Europe/Paris'),
      end: at('2026-11-27T00:00:00.0000000', 'Europe/Paris'),
    });
    m.addEvent({
      id: 'm4',
      subject: 'Gym',
      showAs: 'free',
      start: at('2026-11-23T18:00:00.0000000', 'UTC'),
      end: at('2026-11-23T19:00:00.0000000', 'UTC'),
    });
    m.addEvent({
      id: 'm5',
      subject: 'DST edge',
      start: at('2027-03-14T02:30:00.0000000', 'Eastern Standard Time'),
      end: at('2027-03-14T04:00:00.0000000', 'Eastern Standard Time'),
    });

    m.addEvent({
      id: 'mx',
      subject: 'Unknown zone',
      start: at('2026-11-23T09:00:00.0000000', 'Mars Standard Time'),
      end: at('2026-11-23T10:00:00.0000000', 'Mars Standard Time'),
    });
    const { authUrl, integrationId, back } = await h.connect(user, 'microsoft', 'https://app.routinely.test/x');
    id = integrationId;
    expect(authUrl.pathname).toBe('/common/oauth2/v2.0/authorize');
    expect(authUrl.searchParams.get('scope')?.split(' ')).toContain('offline_access');
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(back.headers.location).toBe(
      `https://app.routinely.test/x?integration_id=${id}&provider=microsoft&status=active`,
    );
    expect(await integration()).toMatchObject({ status: 'active', account_email: m.email });
    // The subscription passed Graph's validation handshake.
    expect(m.subscriptions.size).toBe(1);
    expect([...m.subscriptions.values()][0]).toMatchObject({
      resource: 'me/events',
      changeType: 'created,updated,deleted',
    });

    const byId = Object.fromEntries((await rows()).map((r) => [r.external_id, r]));
    // The event in a zone nobody can map is skipped; the rest syncs.
    expect(Object.keys(byId)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    expect(byId.m1?.start).toBe('2026-11-23T17:00:00.000Z');
    expect(byId.m2?.start).toBe('2026-11-24T00:00:00.000Z');
    expect(byId.m3?.start).toBe('2026-11-25T23:00:00.000Z');
    expect(byId.m3?.end).toBe('2026-11-26T23:00:00.000Z');
    expect(byId.m4?.busy).toBe(false);
    // 02:30 does not exist in New York that night: it lands just after the jump (03:30 EDT).
    expect(byId.m5?.start).toBe('2027-03-14T07:30:00.000Z');
    expect(await h.outbox('integration.event.upserted')).toHaveLength(5);
  });

  it('incremental delta: change, add, cancel and @removed with exact counts', async () => {
    const m = h.microsoft;
    m.changeEvent('m1', {
      subject: 'Sync (moved)',
      start: at('2026-11-23T10:00:00.0000000', 'Pacific Standard Time'),
      end: at('2026-11-23T10:30:00.0000000', 'Pacific Standard Time'),
    });
    m.addEvent({
      id: 'm6',
      subject: 'New',
      start: at('2026-11-25T08:00:00.0000000', 'W. Europe Standard Time'),
      end: at('2026-11-25T09:00:00.0000000', 'W. Europe Standard Time'),
    });
    m.cancelEvent('m2');
    m.removeEvent('m4');
    const before = (await h.outbox()).length;
    const res = await sync();
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ fetched: 4, created: 1, updated: 1, deleted: 2 });
    const published = (await h.outbox()).slice(before);
    expect(published.map((e) => `${e.type}:${e.data.event.external_id}:${e.data.event.version}`).sort()).toEqual([
      'integration.event.deleted:m2:2',
      'integration.event.deleted:m4:2',
      'integration.event.upserted:m1:2',
      'integration.event.upserted:m6:1',
    ]);
    expect((await sync()).json()).toEqual({ fetched: 0, created: 0, updated: 0, deleted: 0 });
  });

  it('a notification with the right clientState triggers a sync; a wrong one is 401 and changes nothing', async () => {
    h.microsoft.addEvent({
      id: 'm7',
      subject: 'Pushed',
      start: at('2026-11-28T09:00:00.0000000', 'UTC'),
      end: at('2026-11-28T10:00:00.0000000', 'UTC'),
    });
    expect(await h.microsoft.notify({ clientState: 'forged' })).toEqual([401]);
    expect(await h.service.workers.syncDue()).toBe(0);
    expect(await h.microsoft.notify()).toEqual([202]);
    expect(await h.service.workers.syncDue()).toBe(1);
    expect((await rows()).map((r) => r.external_id)).toContain('m7');
  });

  it('echoes a validationToken as text/plain', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/v1/service/integrations/microsoft/notifications?validationToken=abc%20123',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toBe('abc 123');
  });

  it('refreshes once on a 401 (rotating refresh tokens), and a 410 delta restarts a full sync', async () => {
    const refreshes = h.microsoft.counts.refresh_token;
    h.microsoft.expireAccessTokens();
    h.microsoft.changeEvent('m7', { subject: 'Pushed (renamed)' });
    expect((await sync()).json()).toMatchObject({ fetched: 1, updated: 1 });
    expect(h.microsoft.counts.refresh_token).toBe(refreshes + 1);
    h.microsoft.expireAccessTokens();
    expect((await sync()).statusCode).toBe(200);
    expect(h.microsoft.counts.refresh_token).toBe(refreshes + 2);

    h.microsoft.expireDeltaTokens();
    const full = await sync();
    // m1, m3, m5, m6, m7 and the unreadable one.
    expect(full.json()).toEqual({ fetched: 6, created: 0, updated: 0, deleted: 0 });
  });

  it('channel renewal extends the subscription before it expires', async () => {
    const before = (await integration()).push_expires_at;
    h.clock.advance(40 * 3600_000);
    expect(await h.service.workers.renewChannels()).toBe(1);
    const after = (await integration()).push_expires_at;
    expect(Date.parse(after)).toBeGreaterThan(Date.parse(before));
    expect([...h.microsoft.subscriptions.values()][0]?.expirationDateTime).toBe(after);
  });

  it('invalid_grant: error, reauth_required, integrationFailed for the bell', async () => {
    h.microsoft.failRefreshWithInvalidGrant();
    h.microsoft.expireAccessTokens();
    expect((await sync()).statusCode).toBe(409);
    expect(await integration()).toMatchObject({ status: 'error', last_error: 'reauth_required' });
    expect((await h.outbox('integration.integration.failed')).at(-1)?.data.reauth_required).toBe(true);
  });

  it('disconnect: revoked, tokens and subscription gone, events leave', async () => {
    expect((await h.call(user, 'DELETE', `/service/integrations/${id}`)).statusCode).toBe(204);
    expect(await integration()).toMatchObject({ status: 'revoked' });
    expect(await rows()).toHaveLength(0);
    expect(await h.outbox('integration.integration.revoked')).toHaveLength(1);
    expect((await sync()).statusCode).toBe(409);
  });
});
