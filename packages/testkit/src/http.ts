import { createHttpApp, mountApi, type ServiceInstance } from '@routinely/platform';
import type { FastifyInstance } from 'fastify';
import { quietLogger } from './infra.js';
import type { TestTokens } from './tokens.js';

/**
 * The HTTP side of one service as the hosts serve it (both mounts, the platform's auth, errors and
 * schemas), verifying tokens minted by `tokens`. Tests drive it with `app.inject`.
 */
export async function buildTestHttpApp(service: ServiceInstance, tokens: TestTokens): Promise<FastifyInstance> {
  const app = await createHttpApp({ logger: quietLogger(), verifyToken: tokens.verifier() });
  await mountApi(app, service.routes, {});
  if (service.rootRoutes) await app.register(service.rootRoutes);
  await app.ready();
  return app;
}
