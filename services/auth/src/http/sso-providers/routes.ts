import { AppError, fieldError, problemAnswers, ROLES } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AuthContext } from '../../domain/context.js';
import { toProfile } from '../../domain/profile.js';
import { userProfileSchema } from '../accounts/schemas.js';
import { signedIn } from '../request.js';
import { providerRoleList, selectRoleBody, verificationSentSchema } from './schemas.js';

const tags = ['sso'];

/** The provider's admin API on behalf of the caller: email verification and the roles it grants. */
export function providerRoutes(ctx: AuthContext): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    /** The caller, the admin API, and the caller's subject at the provider (undefined when not linked). */
    async function callerAtProvider(request: Parameters<typeof signedIn>[1]) {
      const admin = ctx.sso.admin();
      const { principal, user } = await signedIn(ctx, request);
      const subject = await ctx.ssoAccounts.subjectOf(user, ctx.sso.configured().issuer);
      return { admin, principal, user, subject };
    }

    const sendVerification = (operationId: string, summary: string) => ({
      schema: {
        operationId,
        tags,
        summary,
        response: {
          200: verificationSentSchema,
          ...problemAnswers({
            conflict: 'the account is not linked to the identity provider',
            sso_unavailable: "single sign-on or the provider's admin API is not configured, or the provider is down",
          }),
        },
      },
    });

    for (const path of ['/auth/verify-email', '/auth/resend-verification'] as const) {
      r.post(
        path,
        path === '/auth/verify-email'
          ? sendVerification('sendVerifyEmail', "Send the provider's verify-email action to the caller")
          : sendVerification('resendVerifyEmail', "Send the provider's verify-email action again"),
        async (request) => {
          const { admin, subject } = await callerAtProvider(request);
          if (!subject) throw new AppError('conflict', 'This account is not linked to the identity provider');
          await admin.sendVerifyEmail(subject, `${ctx.config.PUBLIC_BASE_URL}/`);
          return { ok: true as const, sent: true as const };
        },
      );
    }

    r.get(
      '/auth/available-roles',
      {
        schema: {
          operationId: 'listAvailableRoles',
          tags,
          summary: "The roles of this service's client the provider grants the caller",
          response: {
            ...problemAnswers({
              conflict: 'the account is not linked to the identity provider',
              sso_unavailable: "single sign-on or the provider's admin API is not configured, or the provider is down",
            }),
            200: providerRoleList,
          },
        },
      },
      async (request) => {
        const { admin, subject } = await callerAtProvider(request);
        return subject ? admin.clientRoles(subject) : [];
      },
    );

    r.post(
      '/auth/select-role',
      {
        schema: {
          operationId: 'selectRole',
          tags,
          summary: 'Take one of the provider-granted roles locally (permissions follow at the next refresh)',
          body: selectRoleBody,
          response: {
            ...problemAnswers({
              forbidden: 'the provider does not grant the caller this role',
              conflict: 'the account is not linked to the identity provider',
              sso_unavailable: "single sign-on or the provider's admin API is not configured, or the provider is down",
            }),
            200: userProfileSchema,
          },
        },
      },
      async (request) => {
        const role = request.body.role;
        if (!(ROLES as readonly string[]).includes(role)) {
          throw fieldError(['body', 'role'], `must be one of ${ROLES.join(', ')}`, 'enum');
        }
        const { admin, user, subject } = await callerAtProvider(request);
        const granted = subject ? await admin.clientRoles(subject) : [];
        // Only the provider can grant a role; asking for one it does not grant can never raise one's rights.
        if (!granted.some((g) => g.name === role)) {
          throw new AppError('forbidden', 'The identity provider does not grant this role to the caller');
        }
        return toProfile(await ctx.accounts.setRoles(user, [role]));
      },
    );
  };
}
