import { ManualClock } from '@routinely/platform';
import type { WebhookReceiver } from '@routinely/testkit';
import { defined } from '@routinely/testkit';
import Stripe from 'stripe';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEndpoint, type Harness, sqlRows, startHarness, startWithReceiver } from './harness.js';

const stripe = new Stripe('sk_test_not_used');
const clock = new ManualClock('2026-11-21T08:00:00.000Z');
let h: Harness;
let receiver: WebhookReceiver;
let secrets: string[] = [];

beforeAll(async () => {
  const started = await startWithReceiver({ clock }, () => secrets);
  ({ h, receiver } = started);
  return started.close;
});

const ENDPOINT_ROUTES = [
  ['GET', '/service/webhooks/:id', 'SERVICE_WEBHOOK_READ'],
  ['GET', '/service/webhooks/:id/attempts', 'SERVICE_WEBHOOK_READ'],
  ['PATCH', '/service/webhooks/:id', 'SERVICE_WEBHOOK_MANAGE'],
  ['DELETE', '/service/webhooks/:id', 'SERVICE_WEBHOOK_MANAGE'],
  ['POST', '/service/webhooks/:id/rotate-secret', 'SERVICE_WEBHOOK_MANAGE'],
  ['POST', '/service/webhooks/:id/test', 'SERVICE_WEBHOOK_MANAGE'],
] as const;

describe('webhook endpoints: auth, permissions, ownership, validation', () => {
  // 401 and 403 on every route: route-guards.test.ts.
  it('lets SERVICE_WEBHOOK_READ read but not write', async () => {
    const reader = h.tokens.user({ permissions: ['SERVICE_WEBHOOK_READ'] });
    expect(
      (await h.app.inject({ url: '/api/v1/service/webhooks', headers: await h.tokens.auth(reader) })).statusCode,
    ).toBe(200);
    const write = await h.app.inject({
      method: 'POST',
      url: '/api/v1/service/webhooks',
      headers: await h.tokens.auth(reader),
      payload: { name: 'x', url: receiver.url },
    });
    expect(write.statusCode).toBe(403);
  });

  it("answers 404 for another tenant's and another user's endpoint on every route", async () => {
    const owner = h.tokens.user();
    const endpoint = await createEndpoint(h, owner, { url: receiver.url });
    const sameTenant = h.tokens.user({ tenantId: owner.tenantId });
    const otherTenant = h.tokens.user();
    for (const intruder of [sameTenant, otherTenant]) {
      for (const [method, path] of ENDPOINT_ROUTES) {
        const res = await h.app.inject({
          method,
          url: `/api/v1${path.replace(':id', endpoint.id)}`,
          headers: await h.tokens.auth(intruder),
          payload: method === 'PATCH' ? { name: 'mine now' } : undefined,
        });
        expect(res.statusCode, `${method} ${path}`).toBe(404);
      }
      const list = await h.app.inject({ url: '/api/v1/service/webhooks', headers: await h.tokens.auth(intruder) });
      expect(list.json()).toEqual([]);
    }
    const still = await h.app.inject({
      url: `/api/v1/service/webhooks/${endpoint.id}`,
      headers: await h.tokens.auth(owner),
    });
    expect(still.json().name).toBe('hook');
  });

  it('answers 422 for invalid bodies, naming the field', async () => {
    const owner = h.tokens.user();
    const auth = await h.tokens.auth(owner);
    const cases: [Record<string, unknown>, string][] = [
      [{ url: receiver.url }, 'body.name'],
      [{ name: 'x' }, 'body.url'],
      [{ name: 'x', url: receiver.url, max_attempts: 9 }, 'body.max_attempts'],
      [{ name: 'x', url: receiver.url, max_attempts: -1 }, 'body.max_attempts'],
      [{ name: 'x', url: receiver.url, enabled: 'yes' }, 'body.enabled'],
      [{ name: 'x', url: 'ftp://example.com/' }, 'body.url'],
      [{ name: 'x', url: 'https://user:pw@example.com/' }, 'body.url'],
    ];
    for (const [payload, loc] of cases) {
      const res = await h.app.inject({ method: 'POST', url: '/api/v1/service/webhooks', headers: auth, payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(422);
      expect(res.json().errors.map((e: { loc: string[] }) => e.loc.join('.'))).toContain(loc);
    }
    const endpoint = await createEndpoint(h, owner, { url: receiver.url });
    const patch = await h.app.inject({
      method: 'PATCH',
      url: `/api/v1/service/webhooks/${endpoint.id}`,
      headers: auth,
      payload: { max_attempts: 10 },
    });
    expect(patch.statusCode).toBe(422);
    const badId = await h.app.inject({ url: '/api/v1/service/webhooks/not-a-uuid', headers: auth });
    expect(badId.statusCode).toBe(422);
  });
});

describe('webhook endpoints: behaviour', () => {
  it('returns the secret once, stores it encrypted, and shows only the preview afterwards, on both mounts', async () => {
    const owner = h.tokens.user();
    const auth = await h.tokens.auth(owner);
    const created = await h.app.inject({
      method: 'POST',
      url: '/v1/service/webhooks',
      headers: auth,
      payload: { name: 'ops', url: receiver.url, description: 'd' },
    });
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(body).toMatchObject({
      name: 'ops',
      url: receiver.url,
      description: 'd',
      enabled: true,
      max_attempts: 4,
      fallback_to_email: false,
      consecutive_failures: 0,
      created_at: '2026-11-21T08:00:00.000Z',
    });
    expect(body.secret).toMatch(/^whsec_/);
    expect(body.secret_preview).toBe(`${body.secret.slice(0, 10)}...${body.secret.slice(-4)}`);
    expect(body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    for (const url of [
      '/api/v1/service/webhooks',
      `/api/v1/service/webhooks/${body.id}`,
      `/v1/service/webhooks/${body.id}`,
    ]) {
      const res = await h.app.inject({ url, headers: auth });
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain(body.secret);
      expect(res.body).toContain(body.secret_preview);
    }
    const [row] = await sqlRows<{ secret_sealed: string }>(
      h.orm,
      'select secret_sealed from webhook_endpoints where id = ?',
      [body.id],
    );
    expect(row?.secret_sealed).not.toContain(body.secret.slice(6));
  });

  it('patches fields, re-checks the URL, and deletes', async () => {
    const owner = h.tokens.user();
    const auth = await h.tokens.auth(owner);
    const endpoint = await createEndpoint(h, owner, { url: receiver.url });
    const patched = await h.app.inject({
      method: 'PATCH',
      url: `/api/v1/service/webhooks/${endpoint.id}`,
      headers: auth,
      payload: { name: 'renamed', enabled: false, max_attempts: 8, fallback_to_email: true, description: null },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({
      name: 'renamed',
      enabled: false,
      max_attempts: 8,
      fallback_to_email: true,
      description: null,
      url: receiver.url,
    });
    const badUrl = await h.app.inject({
      method: 'PATCH',
      url: `/api/v1/service/webhooks/${endpoint.id}`,
      headers: auth,
      payload: { url: 'https://u:p@example.com/' },
    });
    expect(badUrl.statusCode).toBe(422);
    const del = await h.app.inject({ method: 'DELETE', url: `/api/v1/service/webhooks/${endpoint.id}`, headers: auth });
    expect(del.statusCode).toBe(204);
    expect((await h.app.inject({ url: `/api/v1/service/webhooks/${endpoint.id}`, headers: auth })).statusCode).toBe(
      404,
    );
  });

  it('rotates the secret: new plaintext once, consecutive_failures reset', async () => {
    const owner = h.tokens.user();
    const auth = await h.tokens.auth(owner);
    const endpoint = await createEndpoint(h, owner, { url: receiver.url });
    await sqlRows(h.orm, 'update webhook_endpoints set consecutive_failures = 7 where id = ?', [endpoint.id]);
    const rotated = await h.app.inject({
      method: 'POST',
      url: `/api/v1/service/webhooks/${endpoint.id}/rotate-secret`,
      headers: auth,
    });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().secret).toMatch(/^whsec_/);
    expect(rotated.json().secret).not.toBe(endpoint.secret);
    expect(rotated.json().consecutive_failures).toBe(0);
    expect(rotated.json().secret_preview).not.toBe(endpoint.secret_preview);
  });

  it('test sends a signed webhook.test through the delivery signer, verifiable by stripe, without using the retry budget', async () => {
    const owner = h.tokens.user();
    const auth = await h.tokens.auth(owner);
    const endpoint = await createEndpoint(h, owner, { url: `${receiver.url}/hook` });
    secrets = [endpoint.secret];
    receiver.setResponder(() => ({ status: 200, body: 'pong' }));
    const before = receiver.received.length;
    const res = await h.app.inject({
      method: 'POST',
      url: `/api/v1/service/webhooks/${endpoint.id}/test`,
      headers: auth,
    });
    expect(res.statusCode).toBe(200);
    const result = res.json();
    expect(result).toMatchObject({ ok: true, status_code: 200, response_preview: 'pong' });
    expect(result.error).toBeUndefined();
    expect(Number.isInteger(result.latency_ms)).toBe(true);
    const got = defined(receiver.received[before]);
    expect(got.verified).toBe(true);
    expect(got.headers['x-service-signature']).toBe(result.signature);
    expect(got.headers['x-service-event']).toBe('webhook.test');
    expect(got.headers['x-service-endpoint-id']).toBe(endpoint.id);
    expect(got.headers['user-agent']).toBe('Routinely/1.0');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-service-timestamp']).toBe(String(clock.now().getTime() / 1000));
    const event = stripe.webhooks.constructEvent(
      got.rawBody,
      result.signature,
      endpoint.secret,
      300,
      undefined,
      clock.now().getTime() / 1000,
    ) as unknown as Record<string, unknown>;
    expect(event).toMatchObject({ event: 'webhook.test', endpoint_id: endpoint.id, user_id: owner.userId });
    expect(got.rawBody.startsWith('{"attempt":1,')).toBe(true);

    receiver.setResponder(() => ({ status: 503, body: 'down' }));
    const failed = (
      await h.app.inject({ method: 'POST', url: `/api/v1/service/webhooks/${endpoint.id}/test`, headers: auth })
    ).json();
    expect(failed).toMatchObject({
      ok: false,
      status_code: 503,
      response_preview: 'down',
      error: 'receiver answered 503',
    });
    const [count] = await sqlRows<{ n: number }>(h.orm, 'select count(*)::int as n from deliveries');
    expect(count?.n).toBe(0);
    const detail = (await h.app.inject({ url: `/api/v1/service/webhooks/${endpoint.id}`, headers: auth })).json();
    expect(detail.consecutive_failures).toBe(0);
    receiver.setResponder(() => ({ status: 200 }));
  });
});

describe('webhook URLs when private targets are not allowed', () => {
  it('refuses private, loopback and badly resolving URLs at create and patch with 422', async () => {
    const strict = await startHarness({
      clock,
      db: h.db,
      env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' },
      resolveHost: async (host) => {
        if (host === 'hooks.example.com') return [{ address: '93.184.215.14', family: 4 }];
        if (host === 'sneaky.example.com') return [{ address: '127.0.0.1', family: 4 }];
        throw new Error('ENOTFOUND');
      },
    });
    try {
      const owner = strict.tokens.user();
      const auth = await strict.tokens.auth(owner);
      for (const url of [
        'http://hooks.example.com/',
        'https://127.0.0.1/',
        'https://sneaky.example.com/',
        'https://2130706433/',
        'https://[::ffff:10.0.0.1]/',
        'https://[::127.0.0.1]/x',
        'https://[2002:7f00:1::1]/x',
        'https://[2001::7f00:1]/x',
        'https://hooks.example.com:22/x',
      ]) {
        const res = await strict.app.inject({
          method: 'POST',
          url: '/api/v1/service/webhooks',
          headers: auth,
          payload: { name: 'x', url },
        });
        expect(res.statusCode, url).toBe(422);
        expect(res.json().errors[0].loc).toEqual(['body', 'url']);
      }
      const ok = await strict.app.inject({
        method: 'POST',
        url: '/api/v1/service/webhooks',
        headers: auth,
        payload: { name: 'x', url: 'https://hooks.example.com/in' },
      });
      expect(ok.statusCode).toBe(201);
      const patch = await strict.app.inject({
        method: 'PATCH',
        url: `/api/v1/service/webhooks/${ok.json().id}`,
        headers: auth,
        payload: { url: 'https://sneaky.example.com/' },
      });
      expect(patch.statusCode).toBe(422);
      for (const url of ['https://[::127.0.0.1]/x', 'https://hooks.example.com:25/x']) {
        const embedded = await strict.app.inject({
          method: 'PATCH',
          url: `/api/v1/service/webhooks/${ok.json().id}`,
          headers: auth,
          payload: { url },
        });
        expect([embedded.statusCode, embedded.json().errors[0].loc], url).toEqual([422, ['body', 'url']]);
      }
    } finally {
      await strict.close();
    }
  });
});
