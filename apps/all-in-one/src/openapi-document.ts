import { buildOpenApiDocument, openApiJson } from '@routinely/platform';
import { SERVICE_MODULES } from './modules.js';

/**
 * packages/api-client/src/gen/openapi.json, written by `npm run generate` and compared by a drift test: the
 * document the all-in-one serves, built from every service's route definitions in the order the host mounts
 * them, with no database, message bus or listener (ADR 070).
 */
export async function renderOpenApiDocument(): Promise<string> {
  return openApiJson(await buildOpenApiDocument(SERVICE_MODULES.map((module) => module.documentedRoutes())));
}
