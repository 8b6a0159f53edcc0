import {
  type RouteGuardTable,
  runRouteGuards,
  schemaDriftOnFreshDatabase,
  type TestUser,
  tokenGuardTarget,
} from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbConfig } from '../src/index.js';
import { type Harness, startHarness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const MANAGE = 'SERVICE_INTEGRATION_MANAGE';
/** A pending integration of `owner` (oauth/start is enough to create the row). */
const pending = async (owner: TestUser) => {
  const res = await h.call(owner, 'POST', '/service/integrations/google/oauth/start', { return_url: '/x' });
  expect(res.statusCode, res.body).toBe(200);
  return { integration_id: res.json().integration_id as string };
};
const publicReason = 'provider-facing: the OAuth state or the channel secret is the credential';

// Every integration route: a new route fails the coverage check until it is listed here.
const TABLE: RouteGuardTable<TestUser> = {
  'GET /service/integrations': { permission: MANAGE },
  'POST /service/integrations/:provider/oauth/start': {
    permission: MANAGE,
    // No tenant resource in the path: the 404 checked here is the contract's unknown provider.
    fixture: async () => ({ provider: 'outlook' }),
    body: () => ({ return_url: '/settings' }),
    invalid: { body: { return_url: '' } },
  },
  'POST /service/integrations/:integration_id/reconnect': {
    permission: MANAGE,
    fixture: pending,
    body: () => ({ return_url: '/settings' }),
    invalid: { body: { return_url: '' } },
  },
  'POST /service/integrations/:integration_id/sync': {
    permission: MANAGE,
    fixture: pending,
    invalid: { params: { integration_id: 'nope' } },
  },
  'PATCH /service/integrations/:integration_id': {
    permission: MANAGE,
    fixture: pending,
    body: () => ({ write_back: { enabled: false } }),
    invalid: { body: { write_back: { enabled: true, show_as: 'everything' } } },
  },
  'DELETE /service/integrations/:integration_id': {
    permission: MANAGE,
    fixture: pending,
    invalid: { params: { integration_id: 'nope' } },
  },
  'GET /service/integrations/oauth/callback': { auth: { mode: 'none', reason: publicReason } },
  'POST /service/integrations/google/notifications': { auth: { mode: 'none', reason: publicReason } },
  'POST /service/integrations/microsoft/notifications': { auth: { mode: 'none', reason: publicReason } },
};

runRouteGuards('integration', () => tokenGuardTarget(h), TABLE);

describe('integration routes', () => {
  it('answer on both mounts', async () => {
    const user = h.tokens.user();
    const auth = await h.tokens.auth(user);
    const { integration_id } = await pending(user);
    for (const mount of ['/api/v1', '/v1']) {
      const list = await h.app.inject({ url: `${mount}/service/integrations`, headers: auth });
      expect(list.statusCode).toBe(200);
      expect(list.json().map((i: { id: string }) => i.id)).toContain(integration_id);
      const start = await h.app.inject({
        method: 'POST',
        url: `${mount}/service/integrations/microsoft/oauth/start`,
        headers: auth,
        payload: { return_url: '/x' },
      });
      expect(start.statusCode).toBe(200);
      const sync = await h.app.inject({
        method: 'POST',
        url: `${mount}/service/integrations/${integration_id}/sync`,
        headers: auth,
      });
      expect(sync.statusCode).toBe(409);
      const reconnect = await h.app.inject({
        method: 'POST',
        url: `${mount}/service/integrations/${integration_id}/reconnect`,
        headers: auth,
        payload: { return_url: '/x' },
      });
      expect(reconnect.statusCode).toBe(200);
      const callback = await h.app.inject({ url: `${mount}/service/integrations/oauth/callback?state=unknown&code=x` });
      expect(callback.statusCode).toBe(400);
      const google = await h.app.inject({
        method: 'POST',
        url: `${mount}/service/integrations/google/notifications`,
        headers: { 'x-goog-channel-id': 'nope', 'x-goog-channel-token': 'nope' },
      });
      expect(google.statusCode).toBe(401);
      const microsoft = await h.app.inject({
        method: 'POST',
        url: `${mount}/service/integrations/microsoft/notifications?validationToken=t`,
      });
      expect(microsoft.body).toBe('t');
    }
    const other = await pending(user);
    for (const mount of ['/api/v1', '/v1']) {
      const res = await h.app.inject({
        method: 'DELETE',
        url: `${mount}/service/integrations/${other.integration_id}`,
        headers: auth,
      });
      expect(res.statusCode).toBe(204);
    }
  });

  it('leave the public callback and notification routes out of the OpenAPI document', async () => {
    const doc = (await h.app.inject({ url: '/api/v1/openapi.json' })).json();
    const paths = Object.keys(doc.paths);
    expect(paths).toContain('/api/v1/service/integrations');
    expect(paths).toContain('/api/v1/service/integrations/{provider}/oauth/start');
    expect(paths.filter((p) => /callback|notifications/.test(p))).toEqual([]);
  });

  it('oauth/start: unknown provider 404, return URL of a foreign origin 422, no client id 422 provider_not_configured', async () => {
    const user = h.tokens.user();
    const start = (provider: string, return_url: string) =>
      h.call(user, 'POST', `/service/integrations/${provider}/oauth/start`, { return_url });
    expect((await start('yahoo', '/x')).statusCode).toBe(404);
    for (const bad of [
      'https://evil.test/x',
      '//evil.test/x',
      'javascript:alert(1)',
      '/\t/evil.test',
      '/\\evil.test',
    ]) {
      const res = await start('google', bad);
      expect(res.statusCode, bad).toBe(422);
      expect(res.json().errors[0].loc).toEqual(['body', 'return_url']);
    }
    expect((await start('google', 'https://app.routinely.test/back')).statusCode).toBe(200);
    const bare = await h.spawn({ env: { GOOGLE_CLIENT_ID: '' } });
    const res = await bare.app.inject({
      method: 'POST',
      url: '/api/v1/service/integrations/google/oauth/start',
      headers: await h.tokens.auth(user),
      payload: { return_url: '/x' },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe('provider_not_configured');
  });

  it('an expired state (10 minutes) is refused and changes nothing', async () => {
    const user = h.tokens.user();
    const res = await h.call(user, 'POST', '/service/integrations/google/oauth/start', { return_url: '/x' });
    const consent = await fetch(res.json().auth_url, { redirect: 'manual' });
    const callback = new URL(consent.headers.get('location') ?? '');
    h.clock.advance(10 * 60_000 + 1);
    const late = await h.app.inject({ url: `${callback.pathname}${callback.search}` });
    expect(late.statusCode).toBe(400);
    const list = (await h.call(user, 'GET', '/service/integrations')).json();
    expect(list[0].status).toBe('pending');
  });

  it('has no schema drift', async () => {
    expect(await schemaDriftOnFreshDatabase(dbConfig)).toBe('');
  });
});
