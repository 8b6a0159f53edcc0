import { type Principal, requirePrincipal, SESSION_COOKIE } from '@routinely/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthConfig } from '../config.js';
import type { UserRow } from '../db/entities.js';
import type { AccountService } from '../domain/accounts.js';
import type { MfaService } from '../domain/mfa.js';
import type { SessionService } from '../domain/sessions.js';

/** What the route plugins need, built once in buildService. */
export interface AuthContext {
  config: AuthConfig;
  accounts: AccountService;
  sessions: SessionService;
  mfa: MfaService;
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

function cookieAttributes(config: AuthConfig): string {
  const secure = config.COOKIE_SECURE || config.NODE_ENV === 'production';
  return `Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** The web clients' session cookie: the access token, living as long as the token does. */
export function setSessionCookie(reply: FastifyReply, config: AuthConfig, accessToken: string): void {
  reply.header(
    'set-cookie',
    `${SESSION_COOKIE}=${accessToken}; Max-Age=${config.ACCESS_TOKEN_TTL_SECONDS}; ${cookieAttributes(config)}`,
  );
}

export function clearSessionCookie(reply: FastifyReply, config: AuthConfig): void {
  reply.header(
    'set-cookie',
    `${SESSION_COOKIE}=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; ${cookieAttributes(config)}`,
  );
}

/** SSO arrives in a later issue; until then every status report says local only. */
export const LOCAL_ONLY_STATUS = {
  sso_available: false,
  sso_configured: false,
  circuit_breaker: { state: 'closed' as const, failures: 0 },
  auth_methods: ['local'],
  active_auth_method: 'local',
};
