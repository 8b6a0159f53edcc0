import { problemAnswers, safeReturnLocation } from '@routinely/platform';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AuthContext } from '../../domain/context.js';
import { LOGIN_STATE_TTL_SECONDS } from '../../domain/sso/login-states.js';
import { checkReturnUrl, withError } from '../../domain/sso/return-url.js';
import {
  clearFlowCookie,
  clearSessionCookies,
  cookieOf,
  optionalCaller,
  requestTenant,
  SSO_FLOW_COOKIE,
  setFlowCookie,
  setSessionCookies,
} from '../request.js';
import { tokenResponseSchema } from '../sessions/schemas.js';
import {
  callbackQuery,
  logoutRedirect,
  providerRedirect,
  returnUrlQuery,
  ssoStatusResponse,
  ssoTokenBody,
  validateQuery,
  validateResponse,
} from './schemas.js';

const publicRoute = { auth: 'none' } as const;
const tags = ['sso'];

/** Sign-in through the provider: the browser flow, provider tokens presented by clients, status and logout. */
export function ssoLoginRoutes(ctx: AuthContext): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();
    const { config } = ctx;

    async function startLogin(
      request: FastifyRequest,
      reply: FastifyReply,
      rawReturnUrl: string | null | undefined,
      register: boolean,
    ) {
      ctx.sso.available();
      const returnUrl = checkReturnUrl(
        rawReturnUrl ?? undefined,
        config.PUBLIC_BASE_URL,
        config.SSO_ALLOWED_RETURN_ORIGINS,
      );
      const started = await ctx.sso.start({ returnUrl, tenantId: requestTenant(config, request), register });
      setFlowCookie(reply, config, started.browserToken, LOGIN_STATE_TTL_SECONDS);
      reply.header('cache-control', 'no-store');
      return reply.redirect(started.location, 302);
    }

    r.get(
      '/auth/sso/login',
      {
        config: publicRoute,
        schema: {
          operationId: 'startSsoLogin',
          tags,
          summary: 'Start single sign-on: redirect to the provider (code flow, PKCE S256)',
          querystring: returnUrlQuery,
          response: {
            302: providerRedirect,
            ...problemAnswers({ sso_unavailable: 'single sign-on is not configured, or its provider is down' }),
          },
        },
      },
      (request, reply) => startLogin(request, reply, request.query.return_url, false),
    );

    r.get(
      '/auth/sso/register',
      {
        config: publicRoute,
        schema: {
          operationId: 'startSsoRegistration',
          tags,
          summary: 'Start sign-up at the provider (prompt=create), then sign in like /auth/sso/login',
          querystring: returnUrlQuery,
          response: {
            302: providerRedirect,
            ...problemAnswers({ sso_unavailable: 'single sign-on is not configured, or its provider is down' }),
          },
        },
      },
      (request, reply) => startLogin(request, reply, request.query.return_url, true),
    );

    // The browser's return from the provider: public, and not part of the API document.
    r.get(
      '/auth/sso/callback',
      {
        config: publicRoute,
        schema: { operationId: 'completeSsoLoginRedirect', hide: true, querystring: callbackQuery },
      },
      async (request, reply) => {
        const callbackUrl = new URL(`${config.PUBLIC_BASE_URL}/api/v1/auth/sso/callback`);
        callbackUrl.search = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
        const result = await ctx.sso.finishBrowserLogin(callbackUrl, cookieOf(request, SSO_FLOW_COOKIE));
        clearFlowCookie(reply, config);
        reply.header('cache-control', 'no-store');
        // Checked again as it leaves: a row stored under an older rule or origin list never breaks the redirect.
        const back = (stored: string) =>
          safeReturnLocation(stored, {
            publicBaseUrl: config.PUBLIC_BASE_URL,
            allowedOrigins: config.SSO_ALLOWED_RETURN_ORIGINS,
          });
        if (!result.ok) {
          if (!result.returnUrl) {
            return reply.status(400).send({ error: result.error, error_description: 'Unknown or expired login state' });
          }
          return reply.redirect(withError(back(result.returnUrl), result.error), 302);
        }
        setSessionCookies(reply, config, result.tokens);
        return reply.redirect(back(result.returnUrl), 302);
      },
    );

    r.post(
      '/auth/sso/callback',
      {
        config: publicRoute,
        schema: {
          operationId: 'completeSsoLogin',
          tags,
          summary: 'Sign in with a provider ID token or access token',
          body: ssoTokenBody,
          response: {
            ...problemAnswers({
              invalid_sso_token: 'the token is not a valid ID token or access token of the provider',
              registration_closed: "the tenant's registration policy does not admit a new user",
              conflict: 'the account is linked to another identity at the provider',
              sso_unavailable: 'single sign-on is not configured, or its provider is down',
            }),
            200: tokenResponseSchema,
          },
        },
      },
      async (request, reply) => {
        const tokens = await ctx.sso.tokenLogin(request.body.token, requestTenant(config, request));
        setSessionCookies(reply, config, tokens);
        return tokens;
      },
    );

    r.post(
      '/auth/sso/validate',
      {
        config: publicRoute,
        schema: {
          operationId: 'validateSsoToken',
          tags,
          summary: 'Check a provider token without opening a session',
          querystring: validateQuery,
          response: {
            ...problemAnswers({ sso_unavailable: 'single sign-on is not configured, or its provider is down' }),
            200: validateResponse,
          },
        },
      },
      async (request) => ctx.sso.validate(request.query.token),
    );

    r.get(
      '/auth/sso/status',
      {
        config: publicRoute,
        schema: {
          operationId: 'getSsoStatus',
          tags,
          summary: 'Whether the caller has a single sign-on session',
          response: { 200: ssoStatusResponse },
        },
      },
      async (request) => {
        const status = ctx.sso.status();
        const caller = await optionalCaller(ctx, request);
        const session = caller ? await ctx.ssoSessions.ofSession(caller.sessionId) : undefined;
        const expiresAt = caller && session ? await ctx.sessions.expiryOf(caller.sessionId) : undefined;
        return {
          sso_session: session !== undefined && expiresAt !== undefined,
          sso_configured: status.sso_configured,
          sso_available: status.sso_available,
          issuer: config.SSO_ISSUER_URL ?? null,
          session_expires_at: expiresAt?.toISOString() ?? null,
        };
      },
    );

    r.get(
      '/auth/sso/forgot-password',
      {
        config: publicRoute,
        schema: {
          operationId: 'startSsoPasswordRecovery',
          tags,
          summary: "Redirect to the provider's password recovery page",
          response: {
            302: providerRedirect,
            ...problemAnswers({ sso_unavailable: 'single sign-on is not configured, or its provider is down' }),
          },
        },
      },
      async (_request, reply) => reply.redirect(ctx.sso.available().recoveryUrl().toString(), 302),
    );

    r.get(
      '/auth/sso/logout',
      {
        config: publicRoute,
        schema: {
          operationId: 'ssoLogout',
          tags,
          summary: "End the local session and redirect to the provider's logout (id_token_hint)",
          response: {
            ...problemAnswers({ sso_unavailable: 'single sign-on is not configured' }),
            302: logoutRedirect,
          },
        },
      },
      async (request, reply) => {
        ctx.sso.configured();
        const caller = await optionalCaller(ctx, request);
        const target = caller ? await ctx.sso.logoutUrl(caller.sessionId) : undefined;
        if (caller) await ctx.sessions.revoke(caller.tenantId, caller.userId, [caller.sessionId], 'sso_logout');
        clearSessionCookies(reply, config);
        reply.header('cache-control', 'no-store');
        return reply.redirect(target ?? '/', 302);
      },
    );
  };
}
