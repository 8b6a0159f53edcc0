import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../errors.js';
import { createLogger } from '../logger.js';
import { createHttpApp } from './app.js';
import { mountApi } from './mounts.js';

/**
 * The OpenAPI document a host serves for these route plugins (each written after the mount, in the order the
 * host mounts them), built without serving them: the same app factory and mounts as the host, on an app that
 * never listens and refuses every token. `npm run generate` writes it; a drift test compares it (ADR 070).
 */
export async function buildOpenApiDocument(routes: readonly FastifyPluginAsync[]): Promise<Record<string, unknown>> {
  const app = await createHttpApp({
    logger: createLogger({ level: 'silent' }),
    verifyToken: async () => {
      throw new AppError('not_authenticated', 'This app only builds the OpenAPI document');
    },
  });
  try {
    for (const plugin of routes) await mountApi(app, plugin, {});
    await app.ready();
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
  }
}

/** How the document is committed (packages/api-client/src/gen/openapi.json): two-space JSON, a final newline. */
export function openApiJson(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
