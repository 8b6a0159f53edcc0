import type { EventTransport, ExternalEventSnapshot, IntegrationSnapshot } from '@routinely/events';
import { type Logger, ManualClock } from '@routinely/platform';
import {
  type Deliver,
  FakeGoogle,
  FakeMicrosoft,
  outboxPayloads,
  sqlRows,
  startServiceHarness,
  type TestUser,
} from '@routinely/testkit';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { integrationModule } from '../src/index.js';

/** What the integration service's outbox holds, as the tests read it back (the catalog's data shapes). */
interface OutboxEvent {
  type: string;
  data: { event: ExternalEventSnapshot; integration: IntegrationSnapshot; reauth_required?: boolean };
}

export const PUBLIC_BASE_URL = 'https://routinely.test';

/**
 * The integration service from its module against the Google and Microsoft fakes. The fakes reach the service
 * (push notifications, Graph's handshake) through `app.inject`, as the public address would route them.
 */
export async function startHarness(
  options: { env?: Record<string, string>; logger?: Logger; transport?: EventTransport } = {},
) {
  let inject: ((options: InjectOptions) => Promise<LightMyRequestResponse>) | undefined;
  const deliver: Deliver = async (url, init) => {
    const target = new URL(url);
    expect(target.origin).toBe(PUBLIC_BASE_URL);
    if (!inject) throw new Error('service not started');
    const res = await inject({
      method: init.method as InjectOptions['method'],
      url: `${target.pathname}${target.search}`,
      headers: init.headers,
      ...(init.body === undefined ? {} : { payload: init.body }),
    });
    return { status: res.statusCode, text: res.body };
  };
  const google = await FakeGoogle.start({ deliver });
  const microsoft = await FakeMicrosoft.start({ deliver });
  const h = await startServiceHarness(integrationModule, {
    clock: new ManualClock('2026-11-21T08:00:00.000Z'),
    env: {
      ...google.env(),
      ...microsoft.env(),
      PUBLIC_BASE_URL,
      OAUTH_ALLOWED_RETURN_ORIGINS: 'https://app.routinely.test',
      INTEGRATION_WORKERS_ENABLED: 'false',
      INTEGRATION_MAX_INLINE_RETRY_MS: '500',
      // No task service runs here: nothing would report the unified calendar updated, so a sync on request
      // does not wait for it (services/task/test/calendar-read-your-writes.test.ts runs both).
      INTEGRATION_CALENDAR_WAIT_MS: '0',
      ...options.env,
    },
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.transport ? { transport: options.transport } : {}),
  });
  inject = (o) => h.app.inject(o);

  /** oauth/start, the provider's consent (the fake consents at once), then the browser's callback. */
  async function connect(user: TestUser, provider: 'google' | 'microsoft', returnUrl = '/settings/integrations') {
    const start = await h.call(user, 'POST', `/service/integrations/${provider}/oauth/start`, {
      return_url: returnUrl,
    });
    expect(start.statusCode, start.body).toBe(200);
    const { auth_url, integration_id } = start.json();
    const consent = await fetch(auth_url, { redirect: 'manual' });
    expect(consent.status).toBe(302);
    const callback = new URL(consent.headers.get('location') ?? '');
    expect(`${callback.origin}${callback.pathname}`).toBe(
      `${PUBLIC_BASE_URL}/api/v1/service/integrations/oauth/callback`,
    );
    const back = await h.app.inject({ url: `${callback.pathname}${callback.search}` });
    return { authUrl: new URL(auth_url), integrationId: integration_id as string, callback, back };
  }

  async function outbox(type?: string): Promise<OutboxEvent[]> {
    return (await outboxPayloads<OutboxEvent>(h.orm)).filter((e) => !type || e.type === type);
  }

  return {
    ...h,
    google,
    microsoft,
    connect,
    outbox,
    async close() {
      await h.close();
      await google.close();
      await microsoft.close();
    },
  };
}

export type Harness = Awaited<ReturnType<typeof startHarness>>;

/** The tests read what the service stored through the testkit's helper (one for every service). */
export { sqlRows };
