import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from './gen/schema.js';

export type { components, operations, paths };
/** The document's named schemas (Task, TaskTree, Problem, ...). */
export type Schemas = components['schemas'];
export type ApiClient = Client<paths>;

export interface ApiClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** Origin of a deployment, e.g. http://localhost:8080 (paths in the document start with /api/v1). */
  baseUrl: string;
  /** An access token: sent as `Authorization: Bearer ...` on every call. */
  token?: string;
}

/**
 * A typed client of the Routinely API, generated from its OpenAPI document: paths, parameters, bodies and
 * answers (errors as Problem) are checked by TypeScript, so a call that drifts from the document does not
 * compile.
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const { token, headers, ...rest } = options;
  return createClient<paths>({
    ...rest,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(headers as Record<string, string>) },
  });
}
