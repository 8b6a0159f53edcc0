import type { TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, PUBLIC_BASE_URL, sqlRows, startHarness } from './harness.js';

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
const liveRows = () =>
  sqlRows<{ external_id: string; title: string; start_at: Date; busy: boolean; all_day: boolean; version: number }>(
    h.orm,
    "select * from external_events where integration_id = ? and status <> 'cancelled' order by external_id",
    [id],
  );

describe('Google: connect, sync, push, refresh, reauth, disconnect', () => {
  it('connects with PKCE S256 and offline access, runs a paged first sync and opens a watch channel', async () => {
    const g = h.google;
    g.addEvent({
      id: 'e1',
      summary: 'Standup',
      start: { dateTime: '2026-11-23T09:00:00+01:00' },
      end: { dateTime: '2026-11-23T09:15:00+01:00' },
    });
    g.addEvent({
      id: 'e2',
      summary: 'Focus',
      start: { dateTime: '2026-11-23T13:00:00Z' },
      end: { dateTime: '2026-11-23T15:00:00Z' },
      transparency: 'transparent',
    });
    g.addEvent({ id: 'e3', summary: 'Holiday', start: { date: '2026-11-26' }, end: { date: '2026-11-27' } });
    g.addEvent({
      id: 'e4',
      summary: 'Dentist',
      start: { dateTime: '2026-11-24T10:00:00-05:00' },
      end: { dateTime: '2026-11-24T11:00:00-05:00' },
    });
    g.addEvent({
      id: 'e5',
      summary: 'Review',
      start: { dateTime: '2026-11-25T16:00:00Z' },
      end: { dateTime: '2026-11-25T17:00:00Z' },
    });
    g.addEvent({
      id: 'old',
      summary: 'Too old',
      start: { dateTime: '2025-01-01T10:00:00Z' },
      end: { dateTime: '2025-01-01T11:00:00Z' },
    });

    const { authUrl, integrationId, back } = await h.connect(user, 'google');
    id = integrationId;
    const q = authUrl.searchParams;
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('access_type')).toBe('offline');
    expect(q.get('prompt')).toBe('consent');
    expect(q.get('redirect_uri')).toBe(`${PUBLIC_BASE_URL}/api/v1/service/integrations/oauth/callback`);
    expect(back.statusCode).toBe(302);
    expect(back.headers.location).toBe(`/settings/integrations?integration_id=${id}&provider=google&status=active`);

    const row = await integration();
    expect(row).toMatchObject({ id, provider: 'google', status: 'active', account_email: g.email, last_error: null });
    expect(row.push_expires_at).not.toBeNull();
    expect(JSON.stringify(row)).not.toMatch(/access|refresh/);
    // Bounded first pass, singleEvents and showDeleted, paged (2 per page) to the sync token.
    const first = g.listCalls[0] ?? {};
    expect(first).toMatchObject({ singleEvents: 'true', showDeleted: 'true' });
    expect(first.timeMin).toBe('2026-10-22T08:00:00.000Z');
    expect(g.listCalls.filter((c) => c.pageToken)).toHaveLength(2);
    const rows = await liveRows();
    expect(rows.map((r) => r.external_id)).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
    expect(new Date(String(rows.find((r) => r.external_id === 'e1')?.start_at)).toISOString()).toBe(
      '2026-11-23T08:00:00.000Z',
    );
    expect(rows.find((r) => r.external_id === 'e2')?.busy).toBe(false);
    // All-day: midnight to midnight of the calendar's zone (Europe/Berlin).
    const holiday = rows.find((r) => r.external_id === 'e3');
    expect(holiday?.all_day).toBe(true);
    expect(new Date(String(holiday?.start_at)).toISOString()).toBe('2026-11-25T23:00:00.000Z');
    expect(g.channels.size).toBe(1);
    // Tokens are sealed at rest.
    const [secrets] = await sqlRows<{ access_token_sealed: string }>(
      h.orm,
      'select access_token_sealed from integrations where id = ?',
      [id],
    );
    expect(secrets?.access_token_sealed).toMatch(/^v1\./);

    expect(await h.outbox('integration.integration.connected')).toHaveLength(1);
    const upserts = await h.outbox('integration.event.upserted');
    expect(upserts).toHaveLength(5);
    expect(upserts.every((e) => e.data.event.version === 1 && e.data.event.integration_id === id)).toBe(true);
  });

  it('a replayed callback changes nothing', async () => {
    const before = (await h.outbox()).length;
    const { callback } = await h.connect(user, 'google');
    const again = await h.app.inject({ url: `${callback.pathname}${callback.search}` });
    expect(again.statusCode).toBe(400);
    expect(again.json().error).toBe('invalid_state');
    // Only the second connection's own events (connected + its first sync), nothing from the replay.
    const after = await h.outbox();
    expect(after.length - before).toBe(1 + 5);
    await h.call(user, 'DELETE', `/service/integrations/${after.at(-1)?.data.event.integration_id}`);
  });

  it('applies changes, additions and cancellations incrementally with exact counts and growing versions', async () => {
    h.google.changeEvent('e1', {
      summary: 'Standup (moved)',
      start: { dateTime: '2026-11-23T10:00:00+01:00' },
      end: { dateTime: '2026-11-23T10:15:00+01:00' },
    });
    h.google.addEvent({
      id: 'e6',
      summary: 'Lunch',
      start: { dateTime: '2026-11-23T12:00:00Z' },
      end: { dateTime: '2026-11-23T13:00:00Z' },
    });
    h.google.cancelEvent('e5');
    const before = (await h.outbox()).length;
    const res = await sync();
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ fetched: 3, created: 1, updated: 1, deleted: 1 });
    expect(h.google.listCalls.at(-1)?.syncToken).toMatch(/^sync-/);
    const events = (await h.outbox()).slice(before);
    const byExternal = Object.fromEntries(events.map((e) => [e.data.event.external_id, e]));
    expect(byExternal.e1).toMatchObject({
      type: 'integration.event.upserted',
      data: { event: { version: 2, title: 'Standup (moved)' } },
    });
    expect(byExternal.e6).toMatchObject({ type: 'integration.event.upserted', data: { event: { version: 1 } } });
    expect(byExternal.e5).toMatchObject({
      type: 'integration.event.deleted',
      data: { event: { version: 2, status: 'cancelled' } },
    });
    // Nothing new: nothing counted, nothing published.
    expect((await sync()).json()).toEqual({ fetched: 0, created: 0, updated: 0, deleted: 0 });
    expect((await h.outbox()).length).toBe(before + 3);
  });

  it('a push with the right channel token triggers a sync; a wrong token changes nothing', async () => {
    h.google.addEvent({
      id: 'e7',
      summary: 'Pushed',
      start: { dateTime: '2026-11-27T12:00:00Z' },
      end: { dateTime: '2026-11-27T13:00:00Z' },
    });
    expect(await h.google.notify({ token: 'not-the-token' })).toEqual([401]);
    expect(await h.service.workers.syncDue()).toBe(0);
    // A channel's first message (state "sync") is acknowledged but fetches nothing.
    expect(await h.google.notify({ state: 'sync' })).toEqual([200]);
    expect(await h.service.workers.syncDue()).toBe(0);
    expect(await h.google.notify()).toEqual([200]);
    expect(await h.service.workers.syncDue()).toBe(1);
    expect((await liveRows()).map((r) => r.external_id)).toContain('e7');
  });

  it('refreshes before expiry and once on a 401; waits out a short Retry-After; 503 for a long one', async () => {
    const refreshes = h.google.counts.refresh_token;
    h.google.expireAccessTokens();
    h.google.changeEvent('e7', { summary: 'Pushed (renamed)' });
    expect((await sync()).json()).toMatchObject({ fetched: 1, updated: 1 });
    expect(h.google.counts.refresh_token).toBe(refreshes + 1);
    const unauthorized = h.google.counts.unauthorized;
    h.clock.advance(2 * 3600_000);
    expect((await sync()).statusCode).toBe(200);
    expect(h.google.counts.refresh_token).toBe(refreshes + 2);
    expect(h.google.counts.unauthorized).toBe(unauthorized);

    h.google.throttleNext(1, 429, '0');
    expect((await sync()).statusCode).toBe(200);
    h.google.throttleNext(1, 503, '120');
    const busy = await sync();
    expect(busy.statusCode).toBe(503);
    expect(busy.headers['retry-after']).toBe('120');
  });

  it('a 410 for an expired sync token runs a full sync again without duplicating events', async () => {
    h.google.expireSyncTokens();
    const res = await sync();
    expect(res.statusCode, res.body).toBe(200);
    // Every item of the window again, the cancelled one included (showDeleted): none is new, none changed.
    expect(res.json()).toEqual({ fetched: 7, created: 0, updated: 0, deleted: 0 });
    expect(await liveRows()).toHaveLength(6);
  });

  it('invalid_grant puts the integration in error (reauth_required) and tells the bell; reconnect fixes it', async () => {
    h.google.failRefreshWithInvalidGrant();
    h.google.expireAccessTokens();
    const res = await sync();
    expect(res.statusCode).toBe(409);
    expect(await integration()).toMatchObject({ status: 'error', last_error: 'reauth_required' });
    const failed = await h.outbox('integration.integration.failed');
    expect(failed.at(-1)?.data).toMatchObject({ reauth_required: true, integration: { id, status: 'error' } });

    h.google.failRefreshWithInvalidGrant(false);
    const again = await h.call(user, 'POST', `/service/integrations/${id}/reconnect`, {
      return_url: 'https://app.routinely.test/done',
    });
    expect(again.statusCode).toBe(200);
    expect(again.json().integration_id).toBe(id);
    const consent = await fetch(again.json().auth_url, { redirect: 'manual' });
    const callback = new URL(consent.headers.get('location') ?? '');
    const back = await h.app.inject({ url: `${callback.pathname}${callback.search}` });
    expect(back.headers.location).toBe(
      `https://app.routinely.test/done?integration_id=${id}&provider=google&status=active`,
    );
    expect(await integration()).toMatchObject({ status: 'active', last_error: null });
  });

  it('another user sees nothing', async () => {
    const other = h.tokens.user({ tenantId: user.tenantId });
    expect((await h.call(other, 'GET', '/service/integrations')).json()).toEqual([]);
    expect((await h.call(other, 'POST', `/service/integrations/${id}/sync`)).statusCode).toBe(404);
    expect((await h.call(other, 'DELETE', `/service/integrations/${id}`)).statusCode).toBe(404);
  });

  it('disconnect revokes, stops the channel, nulls tokens, keeps the row and drops its events', async () => {
    const grants = h.google.liveRefreshTokens;
    const res = await h.call(user, 'DELETE', `/service/integrations/${id}`);
    expect(res.statusCode).toBe(204);
    expect(await integration()).toMatchObject({ status: 'revoked', push_expires_at: null });
    expect(h.google.channels.size).toBe(0);
    expect(h.google.liveRefreshTokens).toBe(grants - 1);
    const [row] = await sqlRows<Record<string, unknown>>(h.orm, 'select * from integrations where id = ?', [id]);
    expect(row).toMatchObject({ access_token_sealed: null, refresh_token_sealed: null, channel_id: null });
    expect(await liveRows()).toHaveLength(0);
    expect((await h.outbox('integration.integration.revoked')).at(-1)?.data.integration).toMatchObject({
      id,
      status: 'revoked',
    });
    expect((await sync()).statusCode).toBe(409);
  });
});
