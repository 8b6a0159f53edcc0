import type { FastifyInstance, FastifyPluginAsync, FastifyPluginOptions } from 'fastify';
import { API_MOUNTS } from './app.js';

/**
 * Serves a service's routes under both mounts. Route paths are written once, after the mount
 * ("/auth/login", "/service/tasks"); the /v1 copy is hidden from the OpenAPI document.
 */
export async function mountApi<T extends FastifyPluginOptions>(
  app: FastifyInstance,
  routes: FastifyPluginAsync<T>,
  options: T,
): Promise<void> {
  for (const prefix of API_MOUNTS) {
    await app.register(routes, { ...options, prefix });
  }
}
