import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import { hasPermission, type Permission } from '../auth/permissions.js';
import type { Principal, TokenVerifier } from '../auth/tokens.js';
import { AppError, problemOf } from '../errors.js';
import type { Logger } from '../logger.js';
import { registerCors } from './cors.js';
import { CookieCsrfGuard } from './csrf.js';
import {
  clientProblem,
  dropUnwritableHeaders,
  frameworkProblem,
  MAX_URL_LENGTH,
  problemClientErrorHandler,
  requestIdOf,
} from './framework-errors.js';
import { registerRequestObservability } from './observability.js';
import { DOCS_PATH, registerOpenApi } from './openapi.js';
import type { IpRateLimiter } from './rate-limit.js';
import { requestLoggerFactory } from './request-logger.js';
import { refuseUndeclaredQuery, registerBodyParsing } from './request-shape.js';
import { RouteMethods } from './route-methods.js';
import { registerSecurityHeaders } from './security-headers.js';
import { compiledResponseSerializer } from './serializer.js';
import { refuseUnsafeText } from './unsafe-text.js';
import { validationErrors, zodValidatorCompiler } from './validation.js';

export type AuthMode = 'required' | 'optional' | 'none';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Default 'required'. */
    auth?: AuthMode;
    /** Any one of these codes opens the route (SERVICE_ADMIN / SERVICE_SUPER_ADMIN always do). */
    permission?: Permission | readonly Permission[];
    /** Exempt from the per-IP rate limit (probes). */
    rateLimit?: false;
    /**
     * A catch-all that answers what no other route does (the web console's `/*`): it never makes its methods
     * "allowed" on the paths of the API, whose unknown paths stay 404 (and 405 only where a route exists).
     */
    fallback?: true;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** The caller's tenant: the token's tenant_id, else X-Tenant-ID. */
    tenantId: string | null;
  }
}

export const SESSION_COOKIE = 'routinely_session';
export const API_MOUNTS = ['/api/v1', '/v1'] as const;

export interface HttpAppOptions {
  logger: Logger;
  verifyToken: TokenVerifier;
  rateLimiter?: IpRateLimiter;
  trustProxy?: boolean;
  /** Origins a cookie-authenticated unsafe request may come from (see csrf.ts). */
  allowedOrigins?: readonly string[];
}

/** Throws the 401 with the WWW-Authenticate header the contract asks for. */
export function requirePrincipal(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('not_authenticated', 'Authentication required');
  return request.principal;
}

/** Whose rows a call touches: permission codes open routes but never widen this scope (contract, area A). */
export interface Owner {
  tenantId: string;
  userId: string;
}

/** The caller as owner: every read and write of the caller's own data is scoped by this. */
export function ownerOf(request: FastifyRequest): Owner {
  const principal = requirePrincipal(request);
  return { tenantId: principal.tenantId, userId: principal.userId };
}

/** Where the caller's token came from: the cookie one is the one a cross-site page can make a browser send. */
interface CallerToken {
  token: string;
  source: 'bearer' | 'cookie';
}

const BEARER_SCHEME = /^bearer +/i;
const WHITESPACE = /\s/;

/**
 * The token of `Bearer <token>` (scheme in any case, spaces after the scheme and trailing spaces allowed); ''
 * when the header is anything else. Only the short scheme goes through a regex: one over the whole
 * kilobyte-long token cost about 1 % of a read.
 */
function bearerToken(header: string): string {
  const scheme = BEARER_SCHEME.exec(header);
  if (!scheme) return '';
  let end = header.length;
  while (end > scheme[0].length && header.charCodeAt(end - 1) === 32) end--;
  const token = header.slice(scheme[0].length, end);
  return WHITESPACE.test(token) ? '' : token;
}

/** `Authorization: Bearer <token>` exactly (one token, nothing after it); '' marks a malformed header. */
function callerToken(request: FastifyRequest): CallerToken | undefined {
  const header = request.headers.authorization;
  if (header !== undefined) {
    return { token: bearerToken(header), source: 'bearer' };
  }
  const cookieToken = request.cookies?.[SESSION_COOKIE];
  return cookieToken ? { token: cookieToken, source: 'cookie' } : undefined;
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** A promise that never rejects, so it may wait unobserved while other checks run first. */
function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}

/** 405 with the `Allow` header RFC 9110 requires. */
function methodNotAllowed(method: string, path: string, allowed: readonly string[]): AppError {
  return new AppError('method_not_allowed', `${method} is not allowed on ${path}`, {
    headers: { Allow: allowed.join(', ') },
  });
}

function sendProblem(reply: FastifyReply, error: AppError) {
  const problem = problemOf(error, String(reply.request.id));
  if (error.headers) reply.headers(error.headers);
  if (problem.status === 401) reply.header('WWW-Authenticate', 'Bearer');
  return reply.status(problem.status).type('application/problem+json').send(problem);
}

/**
 * The fastify app every service runs in: request ids, problem+json errors, zod schemas for validation,
 * serialization and OpenAPI, authentication and permission checks before the body is read, the per-IP limit.
 */
export async function createHttpApp(options: HttpAppOptions): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    requestIdHeader: false,
    genReqId: (raw) => requestIdOf(raw.headers['x-request-id']),
    childLoggerFactory: requestLoggerFactory,
    clientErrorHandler: problemClientErrorHandler,
    // The router's own refusals (a path parameter over its length limit, a malformed URL) are problems too.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      return sendProblem(reply, frameworkProblem(error));
    },
    trustProxy: options.trustProxy ?? false,
    bodyLimit: 1_048_576,
    routerOptions: { ignoreTrailingSlash: true },
    // One line per request instead, written with route, user and tenant (observability.ts).
    logController: new LogController({ disableRequestLogging: true }),
  });
  const csrf = new CookieCsrfGuard(options.allowedOrigins ?? []);
  const routeMethods = new RouteMethods();
  registerRequestObservability(app);
  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(compiledResponseSerializer);
  app.decorateRequest('principal', null);
  app.decorateRequest('tenantId', null);
  await registerCors(app, options.allowedOrigins ?? []);
  await app.register(cookie);
  await app.register(formbody);
  registerBodyParsing(app);
  app.addContentTypeParser(['text/csv', 'text/plain'], { parseAs: 'string' }, (_req, body, done) => done(null, body));
  registerSecurityHeaders(app, DOCS_PATH);
  await registerOpenApi(app);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (request.raw.url && request.raw.url.length > MAX_URL_LENGTH) {
      throw new AppError('uri_too_long', `Request URI longer than ${MAX_URL_LENGTH} characters`);
    }
    const config = request.routeOptions.config;
    const mode: AuthMode = config.auth ?? 'required';
    const caller = mode === 'none' ? undefined : callerToken(request);
    // The token check (its revocation lookup is a Redis round trip) runs alongside the rate limit's; its
    // outcome is only looked at once the limit let the request through, so the order of checks stays.
    const verified = caller?.token ? settle(options.verifyToken(caller.token)) : undefined;
    if (options.rateLimiter && config.rateLimit !== false) {
      const decision = await options.rateLimiter.consume(request.ip);
      reply.header('RateLimit-Limit', decision.limit);
      reply.header('RateLimit-Remaining', decision.remaining);
      reply.header('RateLimit-Reset', decision.resetSeconds);
      if (!decision.allowed) {
        throw new AppError('rate_limited', 'Rate limit exceeded; retry later', {
          headers: { 'Retry-After': String(decision.retryAfterSeconds) },
        });
      }
    }
    // A known path with a method it does not serve, which a parametric route of that method took (GET
    // /tasks/parse reaching GET /tasks/:task_id): 405, before any check of the route it never meant.
    const url = request.routeOptions.url;
    const path = request.url.split('?')[0] ?? '';
    const allowed = url === undefined ? undefined : routeMethods.shadowing(url, request.method, path);
    if (allowed) throw methodNotAllowed(request.method, path, allowed);
    if (caller !== undefined) {
      if (caller.token === '' || !verified) throw new AppError('not_authenticated', 'Malformed Authorization header');
      if (caller.source === 'cookie') csrf.check(request);
      const outcome = await verified;
      if (!outcome.ok) throw outcome.error;
      request.principal = outcome.value;
      request.tenantId = request.principal.tenantId;
    } else if (mode === 'required' && request.routeOptions.url) {
      throw new AppError('not_authenticated', 'Authentication required');
    }
    if (!request.tenantId) {
      const header = request.headers['x-tenant-id'];
      if (typeof header === 'string' && header) request.tenantId = header.toLowerCase();
    }
    if (config.permission && request.principal && !hasPermission(request.principal.permissions, config.permission)) {
      throw new AppError('forbidden', `Missing permission ${[config.permission].flat().join(' or ')}`);
    }
  });

  app.addHook('preValidation', async (request) => {
    refuseUnsafeText(request);
    refuseUndeclaredQuery(request);
  });

  app.setErrorHandler((error, request, reply) => {
    dropUnwritableHeaders(reply);
    if (error instanceof AppError) return sendProblem(reply, error);
    const err = error as Error & {
      validation?: unknown;
      validationContext?: string;
      statusCode?: number;
      code?: string;
    };
    if (err.validation || 'zodIssues' in err) {
      const schema = (request.routeOptions.schema ?? {}) as Record<string, unknown>;
      const { errors, total } = validationErrors(err, (part) => schema[part]);
      return sendProblem(
        reply,
        new AppError('validation_failed', 'Request validation failed', { errors, errorsTotal: total }),
      );
    }
    if (err.statusCode === 413 || err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return sendProblem(reply, new AppError('payload_too_large', 'Request body too large'));
    }
    if (err.statusCode === 415 || err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return sendProblem(
        reply,
        new AppError('unsupported_media_type', 'This content type is not accepted here; send application/json'),
      );
    }
    if (err.statusCode === 400 && err.code?.startsWith('FST_ERR_CTP')) {
      return sendProblem(
        reply,
        new AppError('validation_failed', 'Malformed request body', {
          errors: [{ loc: ['body'], msg: err.message, type: 'json_invalid' }],
        }),
      );
    }
    const malformed = clientProblem(err);
    if (malformed) return sendProblem(reply, malformed);
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(reply, new AppError('internal_error', 'An unexpected error occurred'));
  });

  // Routes of the API from here on (the CORS preflight's `*` and the docs are not paths of the API); the console's
  // catch-all (`fallback`) never makes its methods "allowed" on the API's paths.
  app.addHook('onRoute', (route) => {
    if (!route.config?.fallback) routeMethods.add(route.url, route.method);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = routeMethods.allowed(path);
    if (allowed.length > 0) return sendProblem(reply, methodNotAllowed(request.method, path, allowed));
    return sendProblem(reply, new AppError('not_found', `No route for ${request.method} ${path}`));
  });
  return app;
}
