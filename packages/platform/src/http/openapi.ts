import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { type ZodType, z } from 'zod';
import { DOCS_LOGO_SVG, DOCS_THEME_CSS } from './docs-theme.js';
import { type DocumentExtras, FACTS_KEY, finishDocument, OPTIONAL_BODY_KEY } from './openapi-document.js';
import { API_DESCRIPTION, TAG_DESCRIPTIONS } from './openapi-guide.js';
import { declaredAnswerHeaders, type RouteFacts } from './problem-responses.js';
import { DOCS_CSP } from './security-headers.js';

export const OPENAPI_PATH = '/api/v1/openapi.json';
export const DOCS_PATH = '/api/v1/docs';
/** The same document and docs page on the alias mount. */
export const ALIAS_OPENAPI_PATH = '/v1/openapi.json';
export const ALIAS_DOCS_PATH = '/v1/docs';

declare module 'fastify' {
  interface FastifyInstance {
    /** What the document says beyond the routes (webhooks); filled by services while they register. */
    openApiExtras: DocumentExtras;
  }
}

const SECURED = [{ OAuth2PasswordBearer: [] }, { HTTPBearer: [] }, { SessionCookie: [] }];

export interface WebhookDoc {
  operationId: string;
  summary: string;
  description: string;
  /** A schema registered with `.meta({ id })`: the envelope's component. */
  payload: ZodType;
  /** Request headers the receiver gets, by name. */
  headers: Record<string, { description: string; example: string }>;
  /** What the receiver's answers mean. */
  responses: Record<string, string>;
}

/** Adds an outgoing event to the document's `webhooks` section (OpenAPI 3.1). */
export function documentWebhook(app: FastifyInstance, event: string, doc: WebhookDoc): void {
  const payloadId = z.globalRegistry.get(doc.payload)?.id;
  if (!payloadId) throw new Error(`webhook ${event}: its payload schema needs .meta({ id })`);
  app.openApiExtras.webhooks[event] = {
    post: {
      operationId: doc.operationId,
      summary: doc.summary,
      description: doc.description,
      tags: ['webhooks'],
      security: [],
      parameters: Object.entries(doc.headers).map(([name, h]) => ({
        name,
        in: 'header',
        required: true,
        description: h.description,
        schema: { type: 'string' },
        example: h.example,
      })),
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${payloadId}` } } },
      },
      responses: Object.fromEntries(
        Object.entries(doc.responses).map(([code, description]) => [code, { description }]),
      ),
    },
  };
}

/**
 * A body accepted as JSON or as text (CSV import: `z.union([z.string(), jsonShape])` with `consumes`) is
 * documented per media type: the string branch under the text types, the rest under JSON.
 */
function splitTextBody(schema: Record<string, unknown>): void {
  const consumes = schema.consumes as string[] | undefined;
  const body = schema.body as { anyOf?: Record<string, unknown>[] } | undefined;
  const textTypes = (consumes ?? []).filter((type) => type.startsWith('text/'));
  if (!body?.anyOf || textTypes.length === 0) return;
  const text = body.anyOf.filter((branch) => branch.type === 'string');
  const json = body.anyOf.filter((branch) => branch.type !== 'string');
  if (text.length !== 1 || json.length === 0) return;
  const jsonSchema = json.length === 1 ? json[0] : { anyOf: json };
  schema.body = {
    content: Object.fromEntries(
      (consumes ?? []).map((type) => [type, { schema: textTypes.includes(type) ? text[0] : jsonSchema }]),
    ),
  };
  delete schema.consumes;
}

/**
 * Success statuses whose answer is the JSON `null` (`200: z.null()`): @fastify/swagger writes no content for
 * them, though the body `null` is sent; the document pass states it.
 */
function nullAnswersOf(response: unknown): string[] {
  if (typeof response !== 'object' || response === null) return [];
  return Object.entries(response)
    .filter(
      ([status, schema]) =>
        ['200', '201'].includes(status) && (schema as ZodType | undefined)?._zod?.def.type === 'null',
    )
    .map(([status]) => status);
}

/**
 * One OpenAPI 3.1 document for every route registered on this app. Only canonical /api/v1 routes are
 * documented; the /v1 alias mount and operational routes are hidden. Named schemas are zod schemas carrying
 * `.meta({ id })` (zod's global registry); the per-route pass records the route's facts, the document pass
 * (openapi-document.ts) turns them into error answers, headers and examples.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  app.decorate('openApiExtras', { webhooks: {}, tagDescriptions: TAG_DESCRIPTIONS });
  // Documentation routes are public.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith(DOCS_PATH) || [OPENAPI_PATH, ALIAS_OPENAPI_PATH].includes(route.url)) {
      route.config = { ...(route.config ?? {}), auth: 'none', rateLimit: false };
      route.schema = { ...(route.schema ?? {}), hide: true };
    }
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        // Contract ("General"): info.title is the product name.
        title: 'Routinely',
        version: '1.0.0',
        description: API_DESCRIPTION,
        contact: { name: 'Routinely' },
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      // Relative: the deployment serving the document (`npm start`: http://localhost:8080).
      servers: [{ url: '/', description: 'The deployment serving this document' }],
      components: {
        securitySchemes: {
          OAuth2PasswordBearer: {
            type: 'oauth2',
            flows: { password: { tokenUrl: '/api/v1/auth/login/form', scopes: {} } },
          },
          HTTPBearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          SessionCookie: { type: 'apiKey', in: 'cookie', name: 'routinely_session' },
          // Sent by browsers to /api/v1/auth only; POST /auth/refresh without a body reads it.
          RefreshCookie: { type: 'apiKey', in: 'cookie', name: 'routinely_refresh' },
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
        // Public: no credentials; optional: a token changes the answer, none is accepted too. A route that names
        // its own credential (the refresh cookie) keeps it.
        schema.security ??= auth === 'none' ? [] : auth === 'optional' ? [...SECURED, {}] : SECURED;
        const facts: RouteFacts = {
          auth,
          hasPermission: config.permission !== undefined,
          rateLimited: config.rateLimit !== false,
          url,
          // A route that answers invalid input itself (attachValidation: the back-channel logout's 400) gives no 422.
          hasInput:
            !route?.attachValidation && ['body', 'querystring', 'params'].some((part) => schema[part] !== undefined),
          hasBody: schema.body !== undefined && !route?.attachValidation,
          answerHeaders: declaredAnswerHeaders((route?.schema as { response?: unknown } | undefined)?.response),
          nullAnswers: nullAnswersOf((route?.schema as { response?: unknown } | undefined)?.response),
        };
        schema[FACTS_KEY] = facts;
        const body = route?.schema?.body;
        if (body instanceof z.ZodType && body.safeParse(undefined).success) schema[OPTIONAL_BODY_KEY] = true;
        splitTextBody(schema);
      }
      return out;
    },
    transformObject: (input) => {
      const document = jsonSchemaTransformObject(input) as Record<string, unknown>;
      return finishDocument(document, app.openApiExtras) as ReturnType<typeof jsonSchemaTransformObject>;
    },
  });
  await app.register(swaggerUi, {
    routePrefix: DOCS_PATH,
    staticCSP: DOCS_CSP,
    logo: { type: 'image/svg+xml', content: Buffer.from(DOCS_LOGO_SVG), href: DOCS_PATH, target: '_self' },
    theme: {
      title: 'Routinely API',
      css: [{ filename: 'routinely.css', content: DOCS_THEME_CSS }],
    },
    uiConfig: { docExpansion: 'list', deepLinking: true, defaultModelsExpandDepth: 0, tryItOutEnabled: false },
  });
  app.get(OPENAPI_PATH, { config: { auth: 'none' }, schema: { hide: true } }, async () => app.swagger());
  app.get(ALIAS_OPENAPI_PATH, { config: { auth: 'none', rateLimit: false }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
  // One docs page: the alias mount sends the browser to it (its assets load relative to /api/v1/docs/).
  app.get(
    `${ALIAS_DOCS_PATH}/*`,
    { config: { auth: 'none', rateLimit: false }, schema: { hide: true } },
    // The rest of the path comes decoded: encoded again, since a Location header carries only ASCII.
    (req, reply) => reply.redirect(`${DOCS_PATH}/${encodedPath((req.params as { '*': string })['*'])}`),
  );
  app.get(ALIAS_DOCS_PATH, { config: { auth: 'none', rateLimit: false }, schema: { hide: true } }, (_req, reply) =>
    reply.redirect(DOCS_PATH),
  );
}

function encodedPath(decoded: string): string {
  try {
    return encodeURI(decoded);
  } catch {
    return ''; // A lone surrogate: the docs page itself.
  }
}

/** A schema to name, alone or with an example for readers (where one built from the schema says little). */
export type NamedSchema = ZodType | { schema: ZodType; example: unknown };

/**
 * Names schemas in the OpenAPI document (`#/components/schemas/<name>`), keeping what else they carry. A
 * named schema is written once and referred to; a recursive one (a task tree) can only be written this way.
 */
export function nameSchemas(schemas: Record<string, NamedSchema>): void {
  for (const [id, entry] of Object.entries(schemas)) {
    const schema = 'schema' in entry ? entry.schema : entry;
    const examples = 'schema' in entry ? { examples: [entry.example] } : {};
    z.globalRegistry.add(schema, { ...z.globalRegistry.get(schema), ...examples, id });
  }
}
