import { Writable } from 'node:stream';
import { createLogger } from '@routinely/platform';
import type { TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  h = await startHarness({ logger: createLogger({ level: 'trace', destination }) });
});
afterAll(() => h?.close());

const start = (user: TestUser, provider: string, return_url: string) =>
  h.call(user, 'POST', `/service/integrations/${provider}/oauth/start`, { return_url });
const pendingRows = async (user: TestUser) =>
  sqlRows<{ id: string; provider: string }>(
    h.orm,
    "select id, provider from integrations where user_id = ? and status = 'pending' order by provider",
    [user.userId],
  );
/** The provider's consent, then the browser's return to the service: the redirect the user ends up with. */
const consentAndReturn = async (authUrl: string) => {
  const consent = await fetch(authUrl, { redirect: 'manual' });
  const callback = new URL(consent.headers.get('location') ?? '');
  return h.app.inject({ url: `${callback.pathname}${callback.search}` });
};

describe('integrations: hostile input', () => {
  it('refuses return URLs outside printable ASCII on oauth/start and reconnect (422 body.return_url)', async () => {
    const user = h.tokens.user();
    const { integration_id } = (await start(user, 'google', '/x')).json();
    for (const bad of ['/。evil.test', '/／evil.test', '/a\u2028b', '/\u3000x', '/\u0130x', '/%2F%2Fevil.test']) {
      for (const res of [
        await start(user, 'google', bad),
        await h.call(user, 'POST', `/service/integrations/${integration_id}/reconnect`, { return_url: bad }),
      ]) {
        expect(res.statusCode, bad).toBe(422);
        expect(res.json().errors[0].loc).toEqual(['body', 'return_url']);
      }
    }
    // Percent-encoded, the same characters are a path on this site, and the callback's redirect works.
    const ok = await start(user, 'google', '/%E3%80%82evil');
    expect(ok.statusCode, ok.body).toBe(200);
    const back = await consentAndReturn(ok.json().auth_url);
    expect(back.statusCode, back.body).toBe(302);
    expect(back.headers.location).toMatch(/^\/%E3%80%82evil\?integration_id=/);
  });

  it('reconnect works without a body and without return_url, going back to the last return URL', async () => {
    const user = h.tokens.user();
    const { integrationId } = await h.connect(user, 'google', '/settings/calendars');
    for (const payload of [undefined, {}]) {
      const res = await h.call(user, 'POST', `/service/integrations/${integrationId}/reconnect`, payload);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ integration_id: integrationId, auth_url: expect.stringMatching(/^http/) });
      const back = await consentAndReturn(res.json().auth_url);
      expect(back.headers.location).toBe(
        `/settings/calendars?integration_id=${integrationId}&provider=google&status=active`,
      );
    }
    const doc = (await h.app.inject({ url: '/api/v1/openapi.json' })).json();
    const body = doc.paths['/api/v1/service/integrations/{integration_id}/reconnect'].post.requestBody;
    expect(body.required).toBe(false);
    expect(doc.paths['/api/v1/service/integrations/{provider}/oauth/start'].post.requestBody.required).toBe(false);
  });

  it("oauth/start without return_url comes back to the console's /settings/calendars, with the outcome", async () => {
    const user = h.tokens.user();
    for (const payload of [undefined, {}]) {
      const res = await h.call(user, 'POST', '/service/integrations/google/oauth/start', payload);
      expect(res.statusCode, res.body).toBe(200);
      const back = await consentAndReturn(res.json().auth_url);
      expect(back.headers.location).toBe(
        `/settings/calendars?integration_id=${res.json().integration_id}&provider=google&status=active`,
      );
    }
    // A refusal at the provider lands there too, with its error code for the page to show.
    const refused = await h.call(user, 'POST', '/service/integrations/microsoft/oauth/start', {});
    const state = new URL(refused.json().auth_url).searchParams.get('state');
    const back = await h.app.inject({
      url: `/api/v1/service/integrations/oauth/callback?state=${state}&error=access_denied`,
    });
    expect(back.statusCode).toBe(302);
    expect(back.headers.location).toBe(
      `/settings/calendars?integration_id=${refused.json().integration_id}&provider=microsoft&status=error&error=access_denied`,
    );
  });

  it('repeated oauth/start calls reuse the pending row of the provider; only the newest state is good', async () => {
    const user = h.tokens.user();
    const answers = [];
    for (let i = 0; i < 30; i += 1) answers.push((await start(user, 'google', `/n${i}`)).json());
    // And concurrent ones serialise on the same row.
    const parallel = await Promise.all(Array.from({ length: 10 }, () => start(user, 'google', '/last')));
    expect(parallel.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
    await start(user, 'microsoft', '/m');
    const rows = await pendingRows(user);
    expect(rows.map((r) => r.provider)).toEqual(['google', 'microsoft']);
    expect(new Set(answers.map((a) => a.integration_id))).toEqual(new Set([rows[0]?.id]));
    // An older authorization URL's state was replaced: its return is refused and changes nothing.
    expect((await consentAndReturn(answers[0].auth_url)).statusCode).toBe(400);
    const latest = parallel.at(-1)?.json();
    const order = await Promise.all(parallel.map(async (r) => (await consentAndReturn(r.json().auth_url)).statusCode));
    expect(order.filter((s) => s === 302)).toHaveLength(1);
    expect(latest.integration_id).toBe(rows[0]?.id);
    // Another user's starts are theirs.
    const other = h.tokens.user({ tenantId: user.tenantId });
    await start(other, 'google', '/x');
    expect(await pendingRows(other)).toHaveLength(1);
  });

  it('a NUL in a provider event is dropped, the sync succeeds, and no log line or last_error carries SQL', async () => {
    const user = h.tokens.user();
    const { integrationId } = await h.connect(user, 'google');
    h.google.addEvent({
      id: 'nul-title',
      summary: 'Stand\u0000up \ud800',
      start: { dateTime: '2026-11-22T10:00:00Z' },
      end: { dateTime: '2026-11-22T11:00:00Z' },
    });
    const res = await h.call(user, 'POST', `/service/integrations/${integrationId}/sync`);
    expect(res.statusCode, res.body).toBe(200);
    const [row] = await sqlRows<{ title: string }>(
      h.orm,
      "select title from external_events where integration_id = ? and external_id = 'nul-title'",
      [integrationId],
    );
    expect(row?.title).toBe('Standup \ufffd');
    const [integration] = (await h.call(user, 'GET', '/service/integrations')).json();
    expect(integration.last_error).toBeNull();
    expect(logLines.join('\n')).not.toMatch(/insert into|update "|select .* from/i);
  });
});
