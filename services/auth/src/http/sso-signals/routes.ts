import { AppError, problemAnswers, problemOf } from '@routinely/platform';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { idpEventSchema, verifyIdpSignature } from '../../adapters/provider-signals.js';
import type { AuthContext } from '../../domain/context.js';
import { clearSessionCookies, optionalCaller } from '../request.js';
import { okSchema } from '../sessions/schemas.js';
import {
  backChannelLogoutForm,
  backChannelLogoutRefused,
  frontChannelLogoutQuery,
  idpEventBody,
  idpSignatureHeaders,
  sessionsEnded,
  transparentGif,
} from './schemas.js';

const publicRoute = { auth: 'none' } as const;
const tags = ['sso'];
/** A transparent 1x1 GIF (43 bytes), the answer front-channel logout iframes expect. */
const TRANSPARENT_GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');

/** Exact bytes of IdP event bodies: the signature covers them, not a re-serialisation. */
const rawBodies = new WeakMap<FastifyRequest, string>();

/** Logout and lifecycle signals sent by the provider (back-channel, front-channel, signed IdP events). */
export function ssoSignalRoutes(ctx: AuthContext): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.post(
      '/auth/sso/back-channel-logout',
      {
        config: publicRoute,
        // Every malformed request is the contract's 400 invalid_request (a problem), never a 422.
        attachValidation: true,
        schema: {
          operationId: 'ssoBackChannelLogout',
          tags,
          summary: 'OIDC Back-Channel Logout 1.0 (form field logout_token)',
          consumes: ['application/x-www-form-urlencoded'],
          body: backChannelLogoutForm,
          response: {
            ...problemAnswers({ sso_unavailable: 'single sign-on is not configured' }),
            200: sessionsEnded,
            400: backChannelLogoutRefused,
          },
        },
      },
      async (request, reply) => {
        ctx.sso.configured();
        reply.header('cache-control', 'no-store');
        const token = request.validationError ? undefined : request.body?.logout_token;
        const result = token
          ? await ctx.ssoSignals.backChannelLogout(token)
          : { ok: false as const, reason: 'logout_token missing' };
        if (!result.ok) {
          request.log.info({ reason: result.reason }, 'back-channel logout refused');
          const problem = problemOf(new AppError('invalid_request', result.reason), String(request.id));
          return reply
            .status(400)
            .type('application/problem+json')
            .send({ ...problem, error: 'invalid_request' as const, error_description: result.reason });
        }
        return reply.status(200).send(null);
      },
    );

    r.get(
      '/auth/sso/front-channel-logout',
      {
        config: publicRoute,
        schema: {
          operationId: 'ssoFrontChannelLogout',
          tags,
          summary: "End the cookie's session (OIDC Front-Channel Logout); answers a 1x1 transparent GIF",
          querystring: frontChannelLogoutQuery,
          produces: ['image/gif'],
          response: {
            ...problemAnswers({ sso_unavailable: 'single sign-on is not configured' }),
            200: transparentGif,
          },
        },
      },
      async (request, reply) => {
        ctx.sso.configured();
        const caller = await optionalCaller(ctx, request);
        await ctx.ssoSignals.frontChannelLogout(caller, request.query.sub);
        clearSessionCookies(reply, ctx.config);
        reply.header('cache-control', 'no-store');
        return reply.type('image/gif').send(TRANSPARENT_GIF);
      },
    );

    await app.register(async (signed) => {
      // Replaces the platform's JSON parser for this route only: the signature needs the raw text.
      signed.removeContentTypeParser('application/json');
      signed.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
        rawBodies.set(request, String(body));
        try {
          done(null, JSON.parse(String(body)));
        } catch {
          // Unparsable bodies still reach the signature check (401 first); the schema then refuses them.
          done(null, null);
        }
      });
      signed.withTypeProvider<ZodTypeProvider>().post(
        '/auth/sso/webhooks/idp-events',
        {
          config: publicRoute,
          schema: {
            operationId: 'receiveIdpEvent',
            tags,
            summary: 'Signed lifecycle events from the provider (X-IdP-Signature: t=<unix>,v1=<hex HMAC-SHA256>)',
            headers: idpSignatureHeaders,
            body: idpEventBody,
            response: {
              ...problemAnswers({
                not_authenticated: 'missing or invalid `X-IdP-Signature` (or outside its 300 s window)',
                sso_unavailable: 'single sign-on is not configured',
              }),
              200: okSchema,
            },
          },
          // The signature is checked before the body is validated: an unsigned caller learns nothing.
          preValidation: async (request) => {
            ctx.sso.configured();
            const secret = ctx.config.SSO_WEBHOOK_SECRET;
            const header = request.headers['x-idp-signature'];
            const raw = rawBodies.get(request) ?? '';
            const now = ctx.clock.now().getTime();
            if (!secret || !verifyIdpSignature(typeof header === 'string' ? header : undefined, raw, secret, now)) {
              throw new AppError('not_authenticated', 'Missing or invalid X-IdP-Signature');
            }
          },
        },
        async (request) => {
          await ctx.ssoSignals.idpEvent(idpEventSchema.parse(request.body));
          return { ok: true as const };
        },
      );
    });
  };
}
