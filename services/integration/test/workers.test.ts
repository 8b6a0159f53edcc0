import { Writable } from 'node:stream';
import { createLogger } from '@routinely/platform';
import { sqlRun } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Harness, sqlRows, startHarness } from './harness.js';

let h: Harness;
const logLines: string[] = [];
beforeAll(async () => {
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  // Workers on: pushes and due polls run through the Pacer as in production. Every log line is kept.
  h = await startHarness({
    env: { INTEGRATION_WORKERS_ENABLED: 'true', INTEGRATION_POLL_INTERVAL_S: '300' },
    logger: createLogger({ level: 'trace', destination }),
  });
});
afterAll(() => h?.close());

const externalIds = async (id: string) =>
  (
    await sqlRows<{ external_id: string }>(
      h.orm,
      "select external_id from external_events where integration_id = ? and status <> 'cancelled' order by 1",
      [id],
    )
  ).map((r) => r.external_id);

describe('integration workers', () => {
  it('a verified push wakes the sync worker, which syncs without any request', async () => {
    const user = h.tokens.user();
    h.google.addEvent({
      id: 'w1',
      summary: 'One',
      start: { dateTime: '2026-11-22T10:00:00Z' },
      end: { dateTime: '2026-11-22T11:00:00Z' },
    });
    const { integrationId } = await h.connect(user, 'google');
    expect(await externalIds(integrationId)).toEqual(['w1']);
    h.google.addEvent({
      id: 'w2',
      summary: 'Two',
      start: { dateTime: '2026-11-22T12:00:00Z' },
      end: { dateTime: '2026-11-22T13:00:00Z' },
    });
    expect(await h.google.notify()).toEqual([200]);
    await vi.waitFor(async () => expect(await externalIds(integrationId)).toEqual(['w1', 'w2']), { timeout: 10_000 });
  });

  it('polls an integration only once its interval has passed', async () => {
    const [row] = await sqlRows<{ id: string }>(h.orm, "select id from integrations where status = 'active'");
    const id = String(row?.id);
    h.google.addEvent({
      id: 'w3',
      summary: 'Three',
      start: { dateTime: '2026-11-23T12:00:00Z' },
      end: { dateTime: '2026-11-23T13:00:00Z' },
    });
    expect(await h.service.workers.syncDue()).toBe(0);
    expect(await externalIds(id)).not.toContain('w3');
    h.clock.advance(301_000);
    // A pass by hand: the pacer would take up to the real poll interval to come round.
    await h.service.workers.syncDue();
    expect(await externalIds(id)).toContain('w3');
  });

  it('one sync per integration: a held lease makes POST /sync 409 and the worker skip the row', async () => {
    const user = h.tokens.user();
    const { integrationId } = await h.connect(user, 'microsoft');
    await sqlRun(h.orm, 'update integrations set sync_lease_until = ?, next_sync_at = ? where id = ?', [
      new Date(h.clock.now().getTime() + 60_000),
      h.clock.now(),
      integrationId,
    ]);
    const res = await h.call(user, 'POST', `/service/integrations/${integrationId}/sync`);
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toMatch(/already running/);
    expect(await h.service.workers.syncDue()).toBe(0);
  });

  it('a consent the user refuses redirects with status=error and leaves the row in error', async () => {
    const user = h.tokens.user();
    h.google.denyConsent = true;
    try {
      const { integrationId, back } = await h.connect(user, 'google');
      expect(back.headers.location).toBe(
        `/settings/integrations?integration_id=${integrationId}&provider=google&status=error&error=access_denied`,
      );
      const [row] = (await h.call(user, 'GET', '/service/integrations')).json();
      expect(row).toMatchObject({ status: 'error', last_error: 'access_denied' });
    } finally {
      h.google.denyConsent = false;
    }
  });

  it('never logs a token, code, state or channel secret', async () => {
    const user = h.tokens.user();
    // A code the provider refuses: the exchange fails and is logged.
    const start = await h.call(user, 'POST', '/service/integrations/google/oauth/start', { return_url: '/x' });
    const consent = await fetch(start.json().auth_url, { redirect: 'manual' });
    const callback = new URL(consent.headers.get('location') ?? '');
    const state = callback.searchParams.get('state') ?? '';
    callback.searchParams.set('code', 'code.forgedforgedforged');
    const back = await h.app.inject({ url: `${callback.pathname}${callback.search}` });
    expect(back.headers.location).toMatch(/status=error&error=exchange_failed$/);
    // And a connection that later loses its grant.
    const { integrationId } = await h.connect(user, 'google');
    h.google.failRefreshWithInvalidGrant();
    h.google.expireAccessTokens();
    expect((await h.call(user, 'POST', `/service/integrations/${integrationId}/sync`)).statusCode).toBe(409);
    h.google.failRefreshWithInvalidGrant(false);

    const all = logLines.join('\n');
    expect(all).toContain('OAuth code exchange failed');
    expect(all).not.toContain(state);
    expect(all).not.toMatch(/access\.[A-Za-z0-9_-]{10}|refresh\.[A-Za-z0-9_-]{10}|code\.[A-Za-z0-9_-]{10}/);
    expect(all).not.toMatch(/code_verifier|client_secret|fake-client-secret/);
  });
});
