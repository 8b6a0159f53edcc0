import { createHash, randomBytes } from 'node:crypto';
import { FakeIdp, type FakeIdpAccount } from '@routinely/testkit';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { signIdpEvent } from '../src/adapters/provider-signals.js';
import { type AuthHarness, startAuth } from './harness.js';

export const CLIENT_ID = 'routinely';
const CLIENT_SECRET = 'sso-test-client-secret';
const WEBHOOK_SECRET = 'sso-test-webhook-secret-0123456789';
const PUBLIC_BASE_URL = 'http://app.test';
export const CALLBACK = `${PUBLIC_BASE_URL}/api/v1/auth/sso/callback`;
export const ALLOWED_ORIGIN = 'https://web.example.test';

export interface SsoHarness {
  h: AuthHarness;
  idp: FakeIdp;
  close(): Promise<void>;
}

/**
 * The auth service (real PostgreSQL, and Redis when asked) configured against a fake identity provider. The
 * service also listens on a loopback port so the provider's back-channel logout reaches it over HTTP.
 */
export async function startSso(options: { redis?: boolean; admin?: boolean; env?: Record<string, string> } = {}) {
  const idp = await FakeIdp.start();
  const h = await startAuth({
    ...(options.redis ? { redis: true } : {}),
    env: {
      SSO_ISSUER_URL: idp.issuer,
      SSO_CLIENT_ID: CLIENT_ID,
      SSO_CLIENT_SECRET: CLIENT_SECRET,
      PUBLIC_BASE_URL,
      SSO_WEBHOOK_SECRET: WEBHOOK_SECRET,
      SSO_ALLOWED_RETURN_ORIGINS: ALLOWED_ORIGIN,
      SSO_PROVIDER_TIMEOUT_MS: '300',
      ...(options.admin === false ? {} : { SSO_ADMIN_API_URL: idp.adminUrl }),
      ...options.env,
    },
  });
  const address = await h.app.listen({ port: 0, host: '127.0.0.1' });
  idp.addClient({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUris: [CALLBACK],
    postLogoutRedirectUris: [`${PUBLIC_BASE_URL}/`],
    backchannelLogoutUri: `${address}/api/v1/auth/sso/back-channel-logout`,
    roles: [
      { name: 'user', description: 'Regular user' },
      // Created without a description: Keycloak's answers then have no `description` key.
      { name: 'admin' },
      { name: 'auditor', description: 'Not a role the service knows' },
    ],
  });
  return {
    h,
    idp,
    close: async () => {
      await h.close();
      await idp.close();
    },
  } satisfies SsoHarness;
}

let counter = 0;
export function newAccount(idp: FakeIdp, overrides: Partial<FakeIdpAccount> = {}): FakeIdpAccount {
  counter += 1;
  return idp.addAccount({
    email: `sso.${Date.now().toString(36)}.${counter}@example.test`,
    password: `pw-${randomBytes(6).toString('hex')}`,
    givenName: 'Sam',
    familyName: 'Sso',
    ...overrides,
  });
}

export const cookieValue = (res: LightMyRequestResponse, name: string): string | undefined => {
  const header = res.headers['set-cookie'];
  const all = Array.isArray(header) ? header : header ? [header] : [];
  for (const cookie of all) {
    const match = new RegExp(`^${name}=([^;]*)`).exec(cookie);
    if (match) return match[1];
  }
  return undefined;
};

/** The whole browser flow without a browser: start, provider login form, callback with the flow cookie. */
export async function browserLogin(
  s: SsoHarness,
  account: { email: string; password: string },
  options: { returnUrl?: string; path?: string; mount?: string } = {},
) {
  const mount = options.mount ?? '/api/v1';
  const query = options.returnUrl === undefined ? '' : `?return_url=${encodeURIComponent(options.returnUrl)}`;
  const start = await s.h.app.inject({ url: `${mount}${options.path ?? '/auth/sso/login'}${query}` });
  expect(start.statusCode, start.body).toBe(302);
  const flow = cookieValue(start, 'routinely_sso_flow');
  const browser = s.idp.browser();
  const callbackUrl = new URL(await browser.signIn(String(start.headers.location), account));
  const callbackPath = `${callbackUrl.pathname}${callbackUrl.search}`;
  const res = await s.h.app.inject({ url: callbackPath, headers: { cookie: `routinely_sso_flow=${flow}` } });
  return { start, flow, browser, callbackPath, res, session: cookieValue(res, 'routinely_session') };
}

/** A real ID token and access token of an account, from the provider's code flow as any client gets them. */
export async function providerTokens(idp: FakeIdp, account: { email: string; password: string }) {
  const metadata = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as Record<
    string,
    string
  >;
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(metadata.authorization_endpoint ?? '');
  url.search = new URLSearchParams({
    client_id: CLIENT_ID,
    redirect_uri: CALLBACK,
    response_type: 'code',
    scope: 'openid email profile',
    state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const callback = new URL(await idp.browser().signIn(url.toString(), account));
  const res = await fetch(metadata.token_endpoint ?? '', {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code') ?? '',
      redirect_uri: CALLBACK,
      code_verifier: verifier,
    }),
  });
  const tokens = (await res.json()) as { id_token: string; access_token: string };
  return { idToken: tokens.id_token, accessToken: tokens.access_token, metadata };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
export const me = (app: FastifyInstance, token: string) =>
  app.inject({ url: '/api/v1/auth/me', headers: bearer(token) });
export const refresh = (app: FastifyInstance, token: string) =>
  app.inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refresh_token: token } });

/** POSTs an IdP event signed at `atSeconds` (or with an explicit signature header). */
export function postIdpEvent(
  s: SsoHarness,
  event: Record<string, unknown>,
  options: { atSeconds?: number; secret?: string; signature?: string | null } = {},
) {
  const raw = JSON.stringify(event);
  const at = options.atSeconds ?? Math.floor(s.h.clock.now().getTime() / 1000);
  const signature =
    options.signature === undefined ? signIdpEvent(raw, options.secret ?? WEBHOOK_SECRET, at) : options.signature;
  return s.h.app.inject({
    method: 'POST',
    url: '/api/v1/auth/sso/webhooks/idp-events',
    headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'x-idp-signature': signature }) },
    payload: raw,
  });
}
