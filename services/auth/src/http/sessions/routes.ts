import { AppError, fieldError, problemAnswers, requirePrincipal } from '@routinely/platform';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { UserRow } from '../../domain/accounts.js';
import type { AuthContext } from '../../domain/context.js';
import { clearSessionCookies, cookieOf, REFRESH_COOKIE, requestTenant, setSessionCookies } from '../request.js';
import {
  loginBody,
  loginFormBody,
  loginResponseSchema,
  logoutBody,
  okSchema,
  REGISTER_FIELDS,
  refreshBody,
  refreshResponseSchema,
  registerBody,
  registerResponseSchema,
} from './schemas.js';

const publicRoute = { auth: 'none' } as const;
const tags = ['auth'];

/** Registration, logins, refresh and logout: everything that opens or ends a session. */
export function sessionRoutes(ctx: AuthContext): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    /** After a correct password: the MFA step when MFA is on, else a session (and the web cookie). */
    async function finishLogin(user: UserRow, reply: FastifyReply) {
      if (user.mfaEnabled) {
        const challenge = await ctx.mfa.createChallenge(user);
        return { mfa_required: true as const, mfa_methods: ['totp' as const, 'backup_code' as const], ...challenge };
      }
      const tokens = await ctx.sessions.open(user);
      setSessionCookies(reply, ctx.config, tokens);
      return tokens;
    }

    r.post(
      '/auth/register',
      {
        config: publicRoute,
        schema: {
          operationId: 'register',
          description:
            "The tenant comes from `tenant_id`, else the `X-Tenant-ID` header, else the deployment's default tenant. The first user of an unused tenant id creates the tenant and becomes its admin; others join as the tenant's registration policy allows (`invite` needs `invite_token`). Fields the schema does not name are kept on the profile as `extra`. A password is 8 to 128 characters and not a common one.",
          tags,
          summary: 'Register a local account',
          body: registerBody,
          response: {
            ...problemAnswers({
              registration_closed: "the tenant's registration policy does not admit you",
              email_taken: 'an account with this email exists in the tenant',
            }),
            201: registerResponseSchema,
          },
        },
      },
      async (request, reply) => {
        const body = request.body;
        const extra = Object.fromEntries(
          Object.entries(body).filter(([key]) => !(REGISTER_FIELDS as readonly string[]).includes(key)),
        );
        const user = await ctx.accounts.register({
          email: body.email,
          password: body.password,
          tenantId: requestTenant(ctx.config, request, body.tenant_id),
          name: body.name,
          firstName: body.first_name,
          lastName: body.last_name,
          displayName: body.display_name,
          phone: body.phone,
          timezone: body.timezone,
          locale: body.locale,
          extra,
          inviteToken: body.invite_token,
        });
        const ssoLinked = await ctx.sso.createAtProvider(user, body.password);
        const tokens = await ctx.sessions.open(user);
        setSessionCookies(reply, ctx.config, tokens);
        return reply.status(201).send(ssoLinked === undefined ? tokens : { ...tokens, sso_linked: ssoLinked });
      },
    );

    r.post(
      '/auth/login',
      {
        config: publicRoute,
        schema: {
          operationId: 'login',
          description:
            'Password login (`email`, `password`) or a provider token (`sso_token`). With MFA on, the answer is `{ mfa_required: true, mfa_token }`: finish with `POST /auth/mfa/verify`. A wrong email and a wrong password answer the same 401.',
          tags,
          summary: 'Log in with email and password (may ask for an MFA code), or with a provider token (sso_token)',
          body: loginBody,
          response: {
            ...problemAnswers({
              invalid_credentials: 'wrong email or password (indistinguishable)',
              invalid_sso_token: 'the `sso_token` is not a valid provider token',
              account_disabled: 'the account is disabled',
              sso_unavailable: '`sso_token` sent while single sign-on is off or its provider is down',
            }),
            200: loginResponseSchema,
          },
        },
      },
      async (request, reply) => {
        const { email, password, sso_token } = request.body;
        if (sso_token !== undefined) {
          const tokens = await ctx.sso.tokenLogin(sso_token, requestTenant(ctx.config, request));
          setSessionCookies(reply, ctx.config, tokens);
          return tokens;
        }
        if (email === undefined || password === undefined) {
          throw fieldError(['body', 'email'], 'Field required');
        }
        const user = await ctx.accounts.authenticate(email, password, request.ip);
        return finishLogin(user, reply);
      },
    );

    r.post(
      '/auth/login/form',
      {
        config: publicRoute,
        schema: {
          operationId: 'loginWithForm',
          tags,
          summary: 'OAuth2 password-flow login (form fields username, password)',
          consumes: ['application/x-www-form-urlencoded'],
          body: loginFormBody,
          response: {
            ...problemAnswers({
              invalid_credentials: 'wrong username or password',
              account_disabled: 'the account is disabled',
            }),
            200: loginResponseSchema,
          },
        },
      },
      async (request, reply) => {
        const user = await ctx.accounts.authenticate(request.body.username, request.body.password, request.ip);
        return finishLogin(user, reply);
      },
    );

    r.post(
      '/auth/refresh',
      {
        config: publicRoute,
        schema: {
          operationId: 'refreshToken',
          description:
            'Refresh tokens rotate: each use answers a new pair (and sets both cookies). Presenting a used refresh token is 401 and revokes every token of its family, except within `REFRESH_REUSE_GRACE_S` (default 10 s) of its rotation, when it answers a new pair of the same session (two tabs refreshing at once). Without `refresh_token` (no body, or `{}`) the `routinely_refresh` cookie is the credential: both cookies are rotated and the answer carries no token; such a request must come from an allowed origin like every cookie-authenticated write, and without the cookie it is 401.',
          tags,
          summary: 'Rotate a refresh token (from the body, or from the refresh cookie)',
          // The body's token needs no other credential; without one, the refresh cookie is it.
          security: [{}, { RefreshCookie: [] }],
          body: refreshBody,
          response: {
            ...problemAnswers({
              invalid_token: 'unknown, expired or already used refresh token (a reused one revokes its whole family)',
              not_authenticated: 'neither `refresh_token` nor the refresh cookie was sent',
              forbidden: 'a cookie refresh from an origin that is not allowed, or with a body that is not JSON',
            }),
            200: refreshResponseSchema,
          },
        },
      },
      async (request, reply) => {
        const presented = request.body?.refresh_token;
        if (presented !== undefined) {
          const tokens = await ctx.sessions.refresh(presented);
          setSessionCookies(reply, ctx.config, tokens);
          return tokens;
        }
        const cookie = cookieOf(request, REFRESH_COOKIE);
        if (!cookie) throw new AppError('not_authenticated', 'Send refresh_token, or the refresh cookie');
        ctx.cookieWrites.check(request);
        const tokens = await ctx.sessions.refresh(cookie).catch((error: unknown) => {
          // A dead refresh cookie is of no use to the browser any more.
          clearSessionCookies(reply, ctx.config);
          throw error;
        });
        setSessionCookies(reply, ctx.config, tokens);
        return { expires_in: tokens.expires_in, refresh_expires_in: tokens.refresh_expires_in, user: tokens.user };
      },
    );

    r.post(
      '/auth/logout',
      {
        schema: {
          operationId: 'logout',
          description:
            "Ends the caller's session (and, with `logout_all`, every session of the user) and clears both cookies; the body is optional.",
          tags,
          summary: 'End this session (or every session with logout_all)',
          body: logoutBody,
          response: { 200: okSchema },
        },
      },
      async (request, reply) => {
        const principal = requirePrincipal(request);
        const { tenantId, userId, sessionId } = principal;
        const ended = new Set([sessionId]);
        if (request.body?.refresh_token) {
          const family = await ctx.sessions.sessionOfRefreshToken(request.body.refresh_token, tenantId, userId);
          // Another user's refresh token is not found, never revoked.
          if (!family) throw new AppError('not_found', 'Refresh token not found');
          ended.add(family);
        }
        // The browser's refresh cookie (sent to the auth routes only) ends with it, should it name another session.
        const cookieRefresh = cookieOf(request, REFRESH_COOKIE);
        const cookieFamily =
          cookieRefresh && (await ctx.sessions.sessionOfRefreshToken(cookieRefresh, tenantId, userId));
        if (cookieFamily) ended.add(cookieFamily);
        if (request.body?.logout_all) {
          for (const id of await ctx.sessions.liveSessions(tenantId, userId)) ended.add(id);
        }
        await ctx.sessions.revoke(tenantId, userId, [...ended], request.body?.logout_all ? 'logout_all' : 'logout');
        clearSessionCookies(reply, ctx.config);
        return { ok: true as const };
      },
    );
  };
}
