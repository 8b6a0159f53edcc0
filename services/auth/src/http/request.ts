// What the routes of several resources share about a request: its tenant, its caller, and the web clients'
// cookies (set and cleared on replies). HTTP only: domain/ never sees a request or a reply.
import { fieldError, type Principal, requirePrincipal, SESSION_COOKIE } from '@routinely/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AuthConfig } from '../config.js';
import type { UserRow } from '../domain/accounts.js';
import type { AuthContext } from '../domain/context.js';

/** The tenant a new account joins: the body's, else X-Tenant-ID, else the deployment's default. */
export function requestTenant(config: AuthConfig, request: FastifyRequest, bodyTenant?: string): string {
  if (bodyTenant) return bodyTenant.toLowerCase();
  if (request.tenantId) {
    if (!z.uuid().safeParse(request.tenantId).success) {
      throw fieldError(['headers', 'x-tenant-id'], 'must be a UUID', 'uuid_parsing');
    }
    return request.tenantId;
  }
  return config.DEFAULT_TENANT_ID;
}

/** One cookie of the request (the platform parses cookies; its typing is not this package's dependency). */
export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  const parsed = (request as FastifyRequest & { cookies?: Record<string, string | undefined> }).cookies;
  return parsed?.[name] || undefined;
}

/** The caller of a public route, if it carries a valid session (cookie or bearer); never an error. */
export async function optionalCaller(ctx: AuthContext, request: FastifyRequest): Promise<Principal | null> {
  const header = request.headers.authorization;
  const token = header?.toLowerCase().startsWith('bearer ')
    ? header.slice(7).trim()
    : cookieOf(request, SESSION_COOKIE);
  if (!token) return null;
  try {
    return await ctx.verifyOwnToken(token);
  } catch {
    return null;
  }
}

/** The caller and their current row (403 when disabled): where every route on the signed-in account starts. */
export async function signedIn(
  ctx: AuthContext,
  request: FastifyRequest,
  options?: { cached?: boolean },
): Promise<{ principal: Principal; user: UserRow }> {
  const principal = requirePrincipal(request);
  return { principal, user: await ctx.accounts.current(principal.tenantId, principal.userId, options) };
}

/** Cookies are `Secure` wherever the site is served over https: they must never travel over plain http. */
function secureAttribute(config: AuthConfig): string {
  const secure =
    config.COOKIE_SECURE || config.NODE_ENV === 'production' || config.PUBLIC_BASE_URL.startsWith('https:');
  return secure ? '; Secure' : '';
}

function cookieAttributes(config: AuthConfig): string {
  return `Path=/; HttpOnly; SameSite=Lax${secureAttribute(config)}`;
}

/** The refresh cookie goes only to the auth routes, and never with a request another site started. */
export const REFRESH_COOKIE = 'routinely_refresh';
const REFRESH_COOKIE_PATH = '/api/v1/auth';
const refreshCookieAttributes = (config: AuthConfig) =>
  `Path=${REFRESH_COOKIE_PATH}; HttpOnly; SameSite=Strict${secureAttribute(config)}`;
const EXPIRED = 'Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT';

/**
 * The web clients' two cookies (contract, "Web console"): the session cookie holds the access token and lives
 * as long as it does; the refresh cookie holds the refresh token and lives as long as its family.
 */
export function setSessionCookies(
  reply: FastifyReply,
  config: AuthConfig,
  tokens: { access_token: string; refresh_token: string; refresh_expires_in: number },
): void {
  reply.header(
    'set-cookie',
    `${SESSION_COOKIE}=${tokens.access_token}; Max-Age=${config.ACCESS_TOKEN_TTL_SECONDS}; ${cookieAttributes(config)}`,
  );
  reply.header(
    'set-cookie',
    `${REFRESH_COOKIE}=${tokens.refresh_token}; Max-Age=${tokens.refresh_expires_in}; ${refreshCookieAttributes(config)}`,
  );
}

export function clearSessionCookies(reply: FastifyReply, config: AuthConfig): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=; ${EXPIRED}; ${cookieAttributes(config)}`);
  reply.header('set-cookie', `${REFRESH_COOKIE}=; ${EXPIRED}; ${refreshCookieAttributes(config)}`);
}

/** Binds a started SSO login to this browser (see LoginStates); lives as long as the login state. */
export const SSO_FLOW_COOKIE = 'routinely_sso_flow';

export function setFlowCookie(reply: FastifyReply, config: AuthConfig, token: string, maxAgeSeconds: number): void {
  reply.header('set-cookie', `${SSO_FLOW_COOKIE}=${token}; Max-Age=${maxAgeSeconds}; ${cookieAttributes(config)}`);
}

export function clearFlowCookie(reply: FastifyReply, config: AuthConfig): void {
  reply.header('set-cookie', `${SSO_FLOW_COOKIE}=; Max-Age=0; ${cookieAttributes(config)}`);
}
