import { sqlRows } from '@routinely/testkit';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKCHANNEL_LOGOUT_EVENT } from '../src/domain/sso/logout-claims.js';
import { postLogin, register, STRONG_PASSWORD } from './harness.js';
import {
  browserLogin,
  CLIENT_ID,
  me,
  newAccount,
  postIdpEvent,
  providerTokens,
  refresh,
  type SsoHarness,
  startSso,
} from './sso-harness.js';

function signalSuite(label: string, redis: boolean) {
  describe(`provider logout signals (${label} revocation store)`, () => {
    let s: SsoHarness;
    beforeAll(async () => {
      s = await startSso({ redis });
    });
    afterAll(() => s?.close());

    const now = () => Math.floor(s.h.clock.now().getTime() / 1000);
    let jti = 0;
    const logoutClaims = (sub: string | undefined, sid: string | undefined) => ({
      iss: s.idp.issuer,
      aud: CLIENT_ID,
      iat: now(),
      jti: `jti-${Date.now()}-${jti++}`,
      events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
      ...(sub ? { sub } : {}),
      ...(sid ? { sid } : {}),
    });
    const backChannel = (token: string | undefined) =>
      s.h.app.inject({
        method: 'POST',
        url: '/api/v1/auth/sso/back-channel-logout',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: token === undefined ? '' : new URLSearchParams({ logout_token: token }).toString(),
      });

    /** Two SSO sessions (one by the browser flow, with the provider's sid) and a password session of one user. */
    async function userWithSessions() {
      const account = newAccount(s.idp);
      const flow = await browserLogin(s, account);
      const tokens = await providerTokens(s.idp, account);
      const second = (
        await s.h.app.inject({ method: 'POST', url: '/api/v1/auth/sso/callback', payload: { token: tokens.idToken } })
      ).json();
      const setPassword = await s.h.app.inject({
        method: 'POST',
        url: '/api/v1/auth/local/setup-password',
        headers: { authorization: `Bearer ${second.access_token}` },
        payload: { password: STRONG_PASSWORD },
      });
      expect(setPassword.statusCode).toBe(200);
      const local = (await postLogin(s.h.app, { email: account.email, password: STRONG_PASSWORD })).json();
      const sidOf = (token: string) =>
        JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()).sid as string;
      // The provider's sid of the browser session, as the service recorded it from that login's ID token.
      const [row] = await sqlRows(s.h.orm, 'select provider_sid from sso_sessions where session_id = ?', [
        sidOf(flow.session ?? ''),
      ]);
      expect(row?.provider_sid).toBeTruthy();
      return {
        account,
        browser: flow.browser,
        first: { access: flow.session ?? '', providerSid: String(row?.provider_sid) },
        second: { access: second.access_token as string, refresh: second.refresh_token as string },
        local: { access: local.access_token as string, refresh: local.refresh_token as string },
      };
    }

    it('refuses every kind of bad logout token with 400 and ends nothing', async () => {
      const u = await userWithSessions();
      const foreign = await generateKeyPair('RS256', { extractable: true });
      const kid = String((await exportJWK(foreign.publicKey)).kid ?? 'attacker');
      const valid = logoutClaims(u.account.sub, undefined);
      const good = await s.idp.sign(valid);
      const [header, , signature] = good.split('.');
      const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
      const { events: _events, ...noEvents } = valid;
      const { jti: _jti, ...noJti } = valid;
      const bad: Record<string, string | undefined> = {
        missing: undefined,
        'not a JWT': 'garbage',
        'alg none': `${b64({ alg: 'none' })}.${b64(valid)}.`,
        tampered: `${header}.${b64({ ...valid, sub: 'someone-else' })}.${signature}`,
        'foreign-signed': await new SignJWT(valid).setProtectedHeader({ alg: 'RS256', kid }).sign(foreign.privateKey),
        'wrong issuer': await s.idp.sign({ ...valid, iss: 'https://evil.test' }),
        'wrong audience': await s.idp.sign({ ...valid, aud: 'another-client' }),
        'iat too old': await s.idp.sign({ ...valid, iat: now() - 301 }),
        'iat in the future': await s.idp.sign({ ...valid, iat: now() + 301 }),
        expired: await s.idp.sign({ ...valid, exp: now() - 60 }),
        'no events': await s.idp.sign(noEvents),
        'wrong event': await s.idp.sign({ ...valid, events: { 'http://schemas.openid.net/event/other': {} } }),
        'event not an object': await s.idp.sign({ ...valid, events: { [BACKCHANNEL_LOGOUT_EVENT]: 'yes' } }),
        'has nonce (an ID token)': await s.idp.sign({ ...valid, nonce: 'n' }),
        'neither sub nor sid': await s.idp.sign(logoutClaims(undefined, undefined)),
        'no jti': await s.idp.sign(noJti),
      };
      for (const [kind, token] of Object.entries(bad)) {
        const res = await backChannel(token);
        expect(res.statusCode, kind).toBe(400);
        // A problem (every error answer is one) that keeps the OIDC members the contract names.
        expect(res.headers['content-type'], kind).toContain('application/problem+json');
        expect(res.json(), kind).toMatchObject({
          type: 'urn:routinely:problem:invalid_request',
          status: 400,
          code: 'invalid_request',
          request_id: expect.any(String),
          error: 'invalid_request',
          error_description: expect.any(String),
        });
        expect(res.headers['cache-control']).toBe('no-store');
      }
      for (const access of [u.first.access, u.second.access, u.local.access])
        expect((await me(s.h.app, access)).statusCode).toBe(200);
      expect((await refresh(s.h.app, u.local.refresh)).statusCode).toBe(200);
    });

    it('a sid ends that session only; a replayed jti is refused', async () => {
      const u = await userWithSessions();
      const token = await s.idp.sign(logoutClaims(u.account.sub, u.first.providerSid));
      const res = await backChannel(token);
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      // Only the session opened in that provider session ends; another provider session and the password one live.
      expect((await me(s.h.app, u.first.access)).statusCode).toBe(401);
      expect((await me(s.h.app, u.second.access)).statusCode).toBe(200);
      expect((await me(s.h.app, u.local.access)).statusCode).toBe(200);
      expect((await refresh(s.h.app, u.local.refresh)).statusCode).toBe(200);
      expect((await backChannel(token)).statusCode).toBe(400);
    });

    it("a sub alone ends every session of the user at once (access and refresh tokens), and nobody else's", async () => {
      const u = await userWithSessions();
      const bystander = await register(s.h.app);
      const res = await backChannel(await s.idp.sign(logoutClaims(u.account.sub, undefined)));
      expect(res.statusCode).toBe(200);
      for (const access of [u.first.access, u.second.access, u.local.access])
        expect((await me(s.h.app, access)).statusCode).toBe(401);
      expect((await refresh(s.h.app, u.second.refresh)).statusCode).toBe(401);
      expect((await refresh(s.h.app, u.local.refresh)).statusCode).toBe(401);
      expect((await me(s.h.app, bystander.access)).statusCode).toBe(200);
      // An unknown subject is acknowledged (nothing to end).
      expect((await backChannel(await s.idp.sign(logoutClaims('unknown-sub', undefined)))).statusCode).toBe(200);
    });

    it('ends the session when the user signs out at the provider (real back-channel delivery)', async () => {
      const account = newAccount(s.idp);
      const flow = await browserLogin(s, account);
      expect((await me(s.h.app, flow.session ?? '')).statusCode).toBe(200);
      const end = new URL(`${s.idp.issuer}/session/end`);
      end.searchParams.set('client_id', CLIENT_ID);
      await flow.browser.signOut(end.toString());
      const delivery = s.idp.backchannelDeliveries.at(-1);
      expect(delivery?.url).toMatch(/\/api\/v1\/auth\/sso\/back-channel-logout$/);
      expect(delivery?.status).toBe(200);
      expect((await me(s.h.app, flow.session ?? '')).statusCode).toBe(401);
    });

    it("front-channel logout ends the cookie's session and answers a 43-byte GIF", async () => {
      const u = await userWithSessions();
      const gif = await s.h.app.inject({
        url: '/api/v1/auth/sso/front-channel-logout',
        headers: { cookie: `routinely_session=${u.first.access}` },
      });
      expect(gif.statusCode).toBe(200);
      expect(gif.headers['content-type']).toBe('image/gif');
      expect(gif.headers['cache-control']).toBe('no-store');
      expect(gif.rawPayload.length).toBe(43);
      expect(gif.rawPayload.subarray(0, 6).toString()).toBe('GIF89a');
      expect(String(gif.headers['set-cookie'])).toMatch(/routinely_session=;.*Max-Age=0/);
      expect((await me(s.h.app, u.first.access)).statusCode).toBe(401);
      expect((await me(s.h.app, u.second.access)).statusCode).toBe(200);

      // With sub naming the cookie's user: every SSO session of the user ends; the password session stays.
      const named = await s.h.app.inject({
        url: `/api/v1/auth/sso/front-channel-logout?jti=x&sub=${encodeURIComponent(u.account.sub)}`,
        headers: { cookie: `routinely_session=${u.second.access}` },
      });
      expect(named.statusCode).toBe(200);
      expect((await me(s.h.app, u.second.access)).statusCode).toBe(401);
      expect((await me(s.h.app, u.local.access)).statusCode).toBe(200);

      const anonymous = await s.h.app.inject({ url: '/v1/auth/sso/front-channel-logout?sub=whoever' });
      expect(anonymous.statusCode).toBe(200);
      expect(anonymous.rawPayload.length).toBe(43);
    });

    it('IdP events: user.access.revoked ends every session; stale, future, forged or unsigned events are 401', async () => {
      const u = await userWithSessions();
      const event = {
        id: `evt-${Date.now()}`,
        type: 'user.access.revoked',
        occurred_at: new Date().toISOString(),
        data: { sub: u.account.sub },
      };
      const refused = [
        await postIdpEvent(s, event, { atSeconds: now() - 301 }),
        await postIdpEvent(s, event, { atSeconds: now() + 301 }),
        await postIdpEvent(s, event, { secret: 'not-the-webhook-secret-at-all' }),
        await postIdpEvent(s, event, { signature: null }),
        await postIdpEvent(s, event, { signature: `t=${now()},v1=${'0'.repeat(64)}` }),
        await postIdpEvent(s, event, { signature: 'garbage' }),
      ];
      for (const res of refused) {
        expect(res.statusCode).toBe(401);
        expect(res.json().code).toBe('not_authenticated');
      }
      for (const access of [u.first.access, u.second.access, u.local.access])
        expect((await me(s.h.app, access)).statusCode).toBe(200);

      const ok = await postIdpEvent(s, event);
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual({ ok: true });
      for (const access of [u.first.access, u.second.access, u.local.access])
        expect((await me(s.h.app, access)).statusCode).toBe(401);

      // A redelivery of the same event id is acknowledged and not acted on again.
      const fresh = (await postLogin(s.h.app, { email: u.account.email, password: STRONG_PASSWORD })).json();
      const again = await postIdpEvent(s, event);
      expect(again.statusCode).toBe(200);
      expect((await me(s.h.app, fresh.access_token)).statusCode).toBe(200);

      const unknown = await postIdpEvent(s, { ...event, id: `${event.id}-x`, type: 'user.profile.painted' });
      expect(unknown.statusCode).toBe(200);
      expect((await me(s.h.app, fresh.access_token)).statusCode).toBe(200);
      const invalid = await postIdpEvent(s, { id: 'e', type: 'user.access.revoked' });
      expect(invalid.statusCode).toBe(422);
    });

    it('IdP events: user.account.deleted severs the link; the account becomes local-only', async () => {
      const u = await userWithSessions();
      const res = await postIdpEvent(s, {
        id: `evt-del-${Date.now()}`,
        type: 'user.account.deleted',
        occurred_at: new Date().toISOString(),
        data: { sub: u.account.sub },
      });
      expect(res.statusCode).toBe(200);
      expect((await me(s.h.app, u.first.access)).statusCode).toBe(401);
      const local = await me(s.h.app, u.local.access);
      expect(local.statusCode).toBe(200);
      expect(local.json()).toMatchObject({ auth_method: 'local', has_local_password: true });
      expect((await postLogin(s.h.app, { email: u.account.email, password: STRONG_PASSWORD })).statusCode).toBe(200);
      const rows = await sqlRows(s.h.orm, 'select count(*)::int as n from sso_identities where subject = ?', [
        u.account.sub,
      ]);
      expect(rows).toEqual([{ n: 0 }]);
    });
  });
}

signalSuite('memory', false);
signalSuite('Redis', true);
