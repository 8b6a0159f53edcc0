import type { Orm } from '@routinely/db';
import { type DeliveryService, deliveryModule } from '@routinely/delivery';
import { InProcessTransport } from '@routinely/events';
import { Server, startRpcServer, stopRpcServer } from '@routinely/grpc';
import { integrationModule } from '@routinely/integration';
import { ManualClock, type ServiceInstance } from '@routinely/platform';
import { schedulerModule } from '@routinely/scheduler';
import { taskModule } from '@routinely/task';
import {
  type CallAs,
  type Deliver,
  FakeGoogle,
  startServiceHarness,
  type TestDatabase,
  type TestTokens,
  type TestUser,
} from '@routinely/testkit';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { INTERNAL_SECRET } from './internal.js';

const PUBLIC_BASE_URL = 'https://routinely.test';

/** What the dashboard tests use of the four services. */
export interface DashboardHarness {
  clock: ManualClock;
  /** The one event transport between the four services (a test publishes what a producer would). */
  transport: InProcessTransport;
  task: { call: CallAs; tokens: TestTokens; db: TestDatabase };
  /** The scheduler, with its database and domain for setting up what its own routes do not write directly. */
  scheduler: { call: CallAs; orm: Orm; service: Awaited<ReturnType<typeof schedulerModule.build>> };
  delivery: { service: DeliveryService };
  integration: { call: CallAs };
  /** The provider calendar the integration service connects to. */
  google: FakeGoogle;
  /** Where each peer the task service calls answers gRPC. */
  addresses: { delivery: string; integration: string };
  /** Connects `user`'s Google calendar; answers the integration's id. */
  connectGoogle(user: TestUser): Promise<string>;
  close(): Promise<void>;
}

/** Serves a built service's gRPC on a free loopback port; answers its address and how to stop it. */
async function serveGrpc(service: ServiceInstance) {
  const server = new Server();
  service.addGrpc?.(server);
  const address = await startRpcServer(server, '127.0.0.1', 0);
  return { address, stop: () => stopRpcServer(server) };
}

/**
 * The task service with the real delivery and integration services it reads the dashboard and the health page
 * from, and the scheduler whose events feed its spend and model registry: each from its module on its own
 * database, gRPC on loopback, one manual clock and one event transport between them (task events make
 * delivery's reminders, the scheduler's soft-cap event a bell notice).
 */
export async function startDashboardHarness(
  now: string,
  options: { integrationEnv?: Record<string, string> } = {},
): Promise<DashboardHarness> {
  const clock = new ManualClock(now);
  const transport = new InProcessTransport();
  const shared = { clock, transport, internalSecret: INTERNAL_SECRET };
  const delivery = await startServiceHarness(deliveryModule, {
    ...shared,
    env: { DELIVERY_WORKERS_ENABLED: 'true', DELIVERY_POLL_MS: '1000' },
  });
  let inject: ((options: InjectOptions) => Promise<LightMyRequestResponse>) | undefined;
  // The fake provider reaches the integration service's public routes as the public address would route them.
  const deliver: Deliver = async (url, init) => {
    const target = new URL(url);
    if (!inject) throw new Error('integration service not started');
    const res = await inject({
      method: init.method as InjectOptions['method'],
      url: `${target.pathname}${target.search}`,
      headers: init.headers,
      ...(init.body === undefined ? {} : { payload: init.body }),
    });
    return { status: res.statusCode, text: res.body };
  };
  const google = await FakeGoogle.start({ deliver });
  const integration = await startServiceHarness(integrationModule, {
    ...shared,
    env: { ...google.env(), PUBLIC_BASE_URL, INTEGRATION_WORKERS_ENABLED: 'true', ...options.integrationEnv },
  });
  inject = (o) => integration.app.inject(o);
  const deliveryGrpc = await serveGrpc(delivery.service);
  const integrationGrpc = await serveGrpc(integration.service);
  const addresses = { delivery: deliveryGrpc.address, integration: integrationGrpc.address };
  const task = await startServiceHarness(taskModule, { ...shared, grpcAddresses: addresses });
  const taskGrpc = await serveGrpc(task.service);
  const grpc = [taskGrpc, deliveryGrpc, integrationGrpc];
  const scheduler = await startServiceHarness(schedulerModule, {
    ...shared,
    grpcAddresses: { task: taskGrpc.address },
  });

  /** OAuth start, the fake's consent, the browser's callback: an active Google connection of `user`. */
  async function connectGoogle(user: TestUser): Promise<string> {
    const start = await integration.call(user, 'POST', '/service/integrations/google/oauth/start', {
      return_url: '/settings/integrations',
    });
    expect(start.statusCode, start.body).toBe(200);
    const consent = await fetch(start.json().auth_url, { redirect: 'manual' });
    const callback = new URL(consent.headers.get('location') ?? '');
    const back = await integration.app.inject({ url: `${callback.pathname}${callback.search}` });
    expect(back.statusCode, back.body).toBeLessThan(400);
    return start.json().integration_id;
  }

  return {
    clock,
    transport,
    task,
    scheduler,
    delivery,
    integration,
    google,
    addresses,
    connectGoogle,
    async close() {
      await scheduler.close();
      await task.close();
      for (const g of grpc) await g.stop();
      await integration.close();
      await delivery.close();
      await google.close();
      await transport.close();
    },
  };
}
