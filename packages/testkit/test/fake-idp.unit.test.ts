import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeIdp } from '../src/fake-idp.js';

const CLIENT = { clientId: 'routinely', clientSecret: 'fake-secret-0123456789' };
const REDIRECT = 'http://rp.test/api/v1/auth/sso/callback';
const basic = `Basic ${Buffer.from(`${CLIENT.clientId}:${CLIENT.clientSecret}`).toString('base64')}`;

describe('FakeIdp (oidc-provider in Keycloak shape)', () => {
  let idp: FakeIdp;
  let receiver: Server;
  const logoutTokens: string[] = [];
  let metadata: Record<string, string>;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        logoutTokens.push(new URLSearchParams(body).get('logout_token') ?? '');
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const port = (receiver.address() as AddressInfo).port;
    idp = await FakeIdp.start();
    idp.addClient({
      ...CLIENT,
      redirectUris: [REDIRECT],
      postLogoutRedirectUris: ['http://rp.test/'],
      backchannelLogoutUri: `http://127.0.0.1:${port}/logout`,
      roles: [
        { name: 'admin', description: 'Administrators' },
        { name: 'viewer', attributes: { scope: ['read'] } },
      ],
    });
    metadata = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as Record<string, string>;
  });
  afterAll(async () => {
    await idp?.close();
    receiver?.close();
  });

  async function codeFlow(email: string, password: string, extra: Record<string, string> = {}) {
    const verifier = randomBytes(32).toString('base64url');
    const url = new URL(metadata.authorization_endpoint ?? '');
    url.search = new URLSearchParams({
      client_id: CLIENT.clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'openid email profile',
      state: 'st',
      nonce: 'nc',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      ...extra,
    }).toString();
    const browser = idp.browser();
    const callback = new URL(await browser.signIn(url.toString(), { email, password }));
    expect(callback.origin + callback.pathname).toBe(REDIRECT);
    expect(callback.searchParams.get('state')).toBe('st');
    const tokenRes = await fetch(metadata.token_endpoint ?? '', {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code') ?? '',
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      }),
    });
    expect(tokenRes.status).toBe(200);
    return { browser, tokens: (await tokenRes.json()) as { id_token: string; access_token: string } };
  }

  it('publishes Keycloak-shaped discovery and signs ID tokens with its JWKS', async () => {
    expect(metadata.issuer).toBe(idp.issuer);
    expect(idp.issuer).toMatch(/\/realms\/routinely$/);
    const account = idp.addAccount({ email: 'alice@example.test', password: 'alice-password', givenName: 'Alice' });
    const { tokens } = await codeFlow('alice@example.test', 'alice-password');
    const { payload } = await jwtVerify(tokens.id_token, createRemoteJWKSet(new URL(metadata.jwks_uri ?? '')), {
      issuer: idp.issuer,
      audience: CLIENT.clientId,
    });
    expect(payload).toMatchObject({ sub: account.sub, email: 'alice@example.test', email_verified: true, nonce: 'nc' });
    expect(typeof payload.sid).toBe('string');
    const info = await fetch(metadata.userinfo_endpoint ?? '', {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(await info.json()).toMatchObject({ sub: account.sub, email: 'alice@example.test', given_name: 'Alice' });
  });

  it('refuses a wrong password on its login form', async () => {
    idp.addAccount({ email: 'bob@example.test', password: 'bob-password' });
    await expect(codeFlow('bob@example.test', 'not-his-password')).rejects.toThrow(/refused the form \(401\)/);
  });

  it('signs up with prompt=create', async () => {
    const { tokens } = await codeFlow('new.person@example.test', 'new-person-password', { prompt: 'create' });
    const claims = decodeJwt(tokens.id_token);
    expect(claims.email).toBe('new.person@example.test');
    expect(claims.email_verified).toBe(false);
    expect(idp.store.byEmail('new.person@example.test')?.sub).toBe(claims.sub);
  });

  it('delivers a back-channel logout token when the user signs out at the provider', async () => {
    idp.addAccount({ email: 'carol@example.test', password: 'carol-password' });
    const { browser, tokens } = await codeFlow('carol@example.test', 'carol-password');
    const end = new URL(metadata.end_session_endpoint ?? '');
    end.search = new URLSearchParams({
      id_token_hint: tokens.id_token,
      post_logout_redirect_uri: 'http://rp.test/',
    }).toString();
    expect(await browser.signOut(end.toString())).toBe('http://rp.test/');
    const token = logoutTokens.at(-1) ?? '';
    const claims = decodeJwt(token);
    expect(claims.sub).toBe(decodeJwt(tokens.id_token).sub);
    expect(claims.sid).toBe(decodeJwt(tokens.id_token).sid);
    expect(claims.events).toHaveProperty(['http://schemas.openid.net/event/backchannel-logout']);
  });

  it('serves the Keycloak admin API to a client-credentials token only', async () => {
    const tokenRes = await fetch(metadata.token_endpoint ?? '', {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });
    const { access_token } = (await tokenRes.json()) as { access_token: string };
    const admin = (path: string, init: RequestInit = {}, token = access_token) =>
      fetch(`${idp.adminUrl}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      });
    expect((await admin('/users', {}, 'forged')).status).toBe(401);
    const created = await admin('/users', {
      method: 'POST',
      body: JSON.stringify({ email: 'dave@example.test', credentials: [{ type: 'password', value: 'dave-password' }] }),
    });
    expect(created.status).toBe(201);
    const id = created.headers.get('location')?.split('/').pop() ?? '';
    expect(idp.store.accounts.get(id)?.email).toBe('dave@example.test');
    expect(
      (await admin('/users', { method: 'POST', body: JSON.stringify({ email: 'dave@example.test' }) })).status,
    ).toBe(409);
    expect(
      (await admin(`/users/${id}/execute-actions-email`, { method: 'PUT', body: '["VERIFY_EMAIL"]' })).status,
    ).toBe(204);
    expect(idp.store.sentActions).toContainEqual({ sub: id, actions: ['VERIFY_EMAIL'] });
    const [client] = (await (await admin('/clients?clientId=routinely')).json()) as { id: string }[];
    const mappings = `/users/${id}/role-mappings/clients/${client?.id}`;
    expect((await admin(mappings, { method: 'POST', body: '[{"name":"nope"}]' })).status).toBe(404);
    await admin(mappings, { method: 'POST', body: '[{"name":"admin"},{"name":"viewer"}]' });
    // Keycloak's JSON leaves null fields out: a role without a description has no such key, and the brief form
    // (the default) no attributes.
    const roles = (await (await admin(`${mappings}/composite`)).json()) as Record<string, unknown>[];
    expect(roles).toEqual([
      {
        id: expect.any(String),
        name: 'admin',
        description: 'Administrators',
        composite: false,
        clientRole: true,
        containerId: client?.id,
      },
      { id: expect.any(String), name: 'viewer', composite: false, clientRole: true, containerId: client?.id },
    ]);
    const full = (await (await admin(`${mappings}/composite?briefRepresentation=false`)).json()) as Record<
      string,
      unknown
    >[];
    expect(full.map((role) => role.attributes)).toEqual([{}, { scope: ['read'] }]);
  });

  it('can be made to fail or hang, and counts the requests that reach it', async () => {
    const before = idp.requestCount;
    idp.health = 'failing';
    expect((await fetch(`${idp.issuer}/.well-known/openid-configuration`)).status).toBe(503);
    idp.health = 'hanging';
    await expect(
      fetch(`${idp.issuer}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(200) }),
    ).rejects.toThrow();
    idp.health = 'up';
    expect((await fetch(`${idp.issuer}/.well-known/openid-configuration`)).status).toBe(200);
    expect(idp.requestCount - before).toBe(3);
  });
});
