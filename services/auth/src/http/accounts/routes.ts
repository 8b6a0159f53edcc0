import { problemAnswers } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AuthContext } from '../../domain/context.js';
import { toProfile } from '../../domain/profile.js';
import { signedIn } from '../request.js';
import { okSchema } from '../sessions/schemas.js';
import {
  authStatusSchema,
  authStatusWithUserSchema,
  meResponseSchema,
  profilePatchBody,
  setLocalPasswordBody,
  setupPasswordBody,
  userProfileSchema,
} from './schemas.js';

const tags = ['auth'];

/** The caller's profile, local passwords, and the auth status probes. */
export function accountRoutes(ctx: AuthContext): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.get(
      '/auth/me',
      {
        schema: {
          operationId: 'getMe',
          tags,
          summary: 'The caller: profile plus access-token claims',
          response: { 200: meResponseSchema },
        },
      },
      async (request) => {
        const { principal, user } = await signedIn(ctx, request, { cached: true });
        const claims = principal.claims as {
          exp: number;
          iat: number;
          jti: string;
          iss?: string;
          aud?: string | string[];
          sid: string;
          typ: string;
        };
        return {
          ...toProfile(user),
          exp: claims.exp,
          iat: claims.iat,
          jti: claims.jti,
          iss: claims.iss,
          aud: claims.aud,
          sid: claims.sid,
          typ: claims.typ,
        };
      },
    );

    r.patch(
      '/auth/me',
      {
        schema: {
          operationId: 'updateMe',
          tags,
          summary: 'Update the caller profile',
          body: profilePatchBody,
          response: { 200: userProfileSchema },
        },
      },
      async (request) => {
        const { user } = await signedIn(ctx, request);
        const b = request.body;
        const updated = await ctx.accounts.updateProfile(user, {
          name: b.name,
          displayName: b.display_name,
          firstName: b.first_name,
          lastName: b.last_name,
          timezone: b.timezone,
          locale: b.locale,
          avatarUrl: b.avatar_url,
        });
        return toProfile(updated);
      },
    );

    r.get(
      '/auth/status',
      {
        config: { auth: 'optional' },
        schema: {
          operationId: 'getAuthStatus',
          tags,
          summary: 'Available login methods and whether the caller is signed in',
          response: { 200: authStatusWithUserSchema },
        },
      },
      async (request) => ({
        ...ctx.sso.status(),
        authenticated: request.principal !== null,
        user_id: request.principal?.userId ?? null,
      }),
    );

    r.get(
      '/auth/health',
      {
        config: { auth: 'none' },
        schema: {
          operationId: 'getAuthHealth',
          tags,
          summary: 'Single sign-on availability and the active auth method',
          response: { 200: authStatusSchema },
        },
      },
      async () => ctx.sso.status(),
    );

    r.post(
      '/auth/set-local-password',
      {
        schema: {
          operationId: 'setLocalPassword',
          tags,
          summary: 'Set or change the local password (current password required when one exists)',
          body: setLocalPasswordBody,
          response: { ...problemAnswers({ invalid_credentials: '`current_password` is wrong' }), 200: okSchema },
        },
      },
      async (request) => {
        const { principal, user } = await signedIn(ctx, request);
        await ctx.accounts.setLocalPassword(user, request.body.new_password, request.body.current_password, request.ip);
        // A changed password ends every other session: whoever knew the old one is signed out.
        const others = await ctx.sessions.liveSessions(user.tenantId, user.id, principal.sessionId);
        await ctx.sessions.revoke(user.tenantId, user.id, others, 'password_changed');
        return { ok: true as const };
      },
    );

    r.post(
      '/auth/local/setup-password',
      {
        schema: {
          operationId: 'setupLocalPassword',
          tags,
          summary: 'Add a local fallback password to an account without one',
          body: setupPasswordBody,
          response: {
            ...problemAnswers({
              password_already_set: 'the account has a local password already (use set-local-password)',
            }),
            200: okSchema,
          },
        },
      },
      async (request) => {
        const { user } = await signedIn(ctx, request);
        await ctx.accounts.setupPassword(user, request.body.password);
        return { ok: true as const };
      },
    );
  };
}
