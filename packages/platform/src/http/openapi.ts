import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { withProblemResponses } from './problem-responses.js';
import { DOCS_CSP } from './security-headers.js';

export const OPENAPI_PATH = '/api/v1/openapi.json';
export const DOCS_PATH = '/api/v1/docs';

/**
 * One OpenAPI 3.1 document for every route registered on this app. Only canonical /api/v1 routes are
 * documented; the /v1 alias mount and operational routes are hidden.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  // Documentation routes are public.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith(DOCS_PATH) || route.url === OPENAPI_PATH) {
      route.config = { ...(route.config ?? {}), auth: 'none', rateLimit: false };
      route.schema = { ...(route.schema ?? {}), hide: true };
    }
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Routinely',
        version: '1.0.0',
        description:
          'Multi-tenant task scheduling, reminder and calendar service. Every path is also served under the /v1 alias.',
      },
      components: {
        securitySchemes: {
          OAuth2PasswordBearer: {
            type: 'oauth2',
            flows: { password: { tokenUrl: '/api/v1/auth/login/form', scopes: {} } },
          },
          HTTPBearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          SessionCookie: { type: 'apiKey', in: 'cookie', name: 'routinely_session' },
        },
      },
    },
    transform: (input) => {
      const { url, route } = input;
      if (!url.startsWith('/api/v1/') || url.startsWith(DOCS_PATH)) {
        return { schema: { hide: true }, url };
      }
      const out = jsonSchemaTransform(input);
      const config = route?.config ?? {};
      const auth = config.auth ?? 'required';
      const schema = out.schema as Record<string, unknown> | undefined;
      if (schema && !schema.hide) {
        if (auth !== 'none') {
          schema.security = [{ OAuth2PasswordBearer: [] }, { HTTPBearer: [] }, { SessionCookie: [] }];
        }
        schema.response = withProblemResponses(schema.response as Record<string, unknown> | undefined, {
          auth,
          hasPermission: config.permission !== undefined,
          rateLimited: config.rateLimit !== false,
          url,
          hasInput: ['body', 'querystring', 'params'].some((part) => schema[part] !== undefined),
        });
      }
      return out;
    },
  });
  await app.register(swaggerUi, { routePrefix: DOCS_PATH, staticCSP: DOCS_CSP });
  app.get(OPENAPI_PATH, { config: { auth: 'none' }, schema: { hide: true } }, async () => app.swagger());
}
