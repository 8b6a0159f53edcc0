import { AppError, fieldError, problemAnswers } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AuthContext } from '../../domain/context.js';
import { setSessionCookies, signedIn } from '../request.js';
import { mfaDisableBody, mfaDisabledSchema, mfaSetupSchema, mfaVerifyBody, mfaVerifyResponse } from './schemas.js';

const tags = ['auth', 'mfa'];

/** TOTP multi-factor authentication: setup, confirmation or login completion, and disabling. */
export function mfaRoutes(ctx: AuthContext): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.post(
      '/auth/mfa/setup',
      {
        schema: {
          operationId: 'startMfaSetup',
          tags,
          summary: 'Start TOTP setup (MFA is on only after /auth/mfa/verify)',
          response: { ...problemAnswers({ mfa_already_enabled: 'MFA is on already' }), 200: mfaSetupSchema },
        },
      },
      async (request) => {
        const { user } = await signedIn(ctx, request);
        return ctx.mfa.setup(user);
      },
    );

    r.post(
      '/auth/mfa/verify',
      {
        config: { auth: 'optional' },
        schema: {
          operationId: 'verifyMfa',
          description:
            'With `mfa_token` (no bearer token) completes a login and answers tokens; with a bearer token and no `mfa_token` confirms a pending setup. A TOTP code is accepted once; a backup code is single-use.',
          tags,
          summary: 'With mfa_token: complete a login. With a bearer token: confirm MFA setup.',
          body: mfaVerifyBody,
          response: {
            ...problemAnswers({
              invalid_mfa_code: 'the code is wrong or used already',
              invalid_token: 'the `mfa_token` is unknown or expired',
              mfa_not_enabled: 'confirming a setup that was never started',
            }),
            200: mfaVerifyResponse,
          },
        },
      },
      async (request, reply) => {
        const { code, mfa_token } = request.body;
        if (mfa_token !== undefined) {
          const user = await ctx.mfa.completeChallenge(mfa_token, code, request.ip);
          const tokens = await ctx.sessions.open(user);
          setSessionCookies(reply, ctx.config, tokens);
          return tokens;
        }
        if (!request.principal)
          throw new AppError('not_authenticated', 'Send mfa_token, or a bearer token to confirm setup');
        const user = await ctx.accounts.current(request.principal.tenantId, request.principal.userId);
        await ctx.mfa.confirm(user, code);
        return { mfa_enabled: true as const };
      },
    );

    r.delete(
      '/auth/mfa',
      {
        schema: {
          operationId: 'disableMfa',
          tags,
          summary: 'Disable MFA ({ password }, or { code } for accounts without a local password)',
          body: mfaDisableBody,
          response: {
            ...problemAnswers({
              invalid_credentials: 'wrong `password`',
              invalid_mfa_code: 'wrong `code`',
              mfa_not_enabled: 'MFA is off',
            }),
            200: mfaDisabledSchema,
          },
        },
      },
      async (request) => {
        const { user } = await signedIn(ctx, request);
        if (!user.mfaEnabled) throw new AppError('mfa_not_enabled', 'MFA is not enabled');
        const { password, code } = request.body;
        if (user.passwordHash) {
          if (password === undefined) throw fieldError(['body', 'password'], 'Field required', 'missing');
          await ctx.accounts.checkPassword(user, password, request.ip);
        } else {
          if (code === undefined) throw fieldError(['body', 'code'], 'Field required', 'missing');
          await ctx.mfa.verifyThrottled(user, code, request.ip);
        }
        await ctx.mfa.disable(user);
        return { ok: true as const, mfa_enabled: false as const };
      },
    );
  };
}
