import { timestampOut } from '@routinely/platform';
import { z } from 'zod';

export const returnUrlQuery = z.object({
  return_url: z.string().max(2048).nullish().describe('Relative path, or an absolute URL of an allowed origin'),
});

/** The browser's return; left out of the OpenAPI document (it is not an API a client calls). */
export const callbackQuery = z.looseObject({
  code: z.string().max(4096).optional(),
  state: z.string().max(512).optional(),
  error: z.string().max(256).optional(),
});

export const ssoTokenBody = z.object({
  token: z.string().min(1).max(16_384).describe('A provider ID token or access token'),
});

export const validateQuery = z.object({ token: z.string().min(1).max(16_384) });

export const validateResponse = z.union([
  z.object({
    valid: z.literal(true),
    sub: z.string(),
    email: z.string().nullable(),
    exp: z.number().int().nullable(),
    claims: z.record(z.string(), z.unknown()),
  }),
  z.object({ valid: z.literal(false), error: z.string() }),
]);

export const ssoStatusResponse = z.object({
  sso_session: z.boolean(),
  sso_configured: z.boolean(),
  sso_available: z.boolean(),
  issuer: z.string().nullable(),
  session_expires_at: timestampOut().nullable(),
});

export const backChannelLogoutBody = z.object({ logout_token: z.string().max(16_384).optional() });
export const backChannelLogoutError = z.object({ error: z.literal('invalid_request'), error_description: z.string() });

export const frontChannelLogoutQuery = z.object({
  jti: z.string().max(512).default(''),
  sub: z.string().max(512).default(''),
  iss: z.string().max(2048).optional(),
  sid: z.string().max(512).optional(),
});

export const idpEventBody = z.object({
  id: z.string().describe('Event id; an id seen before is acknowledged and not acted on again'),
  type: z.string().describe('user.account.deleted | user.access.revoked; other types are ignored'),
  occurred_at: z.string(),
  data: z.looseObject({ sub: z.string() }),
});

export const providerRoleSchema = z.object({ name: z.string(), description: z.string().nullable() });
export const selectRoleBody = z.object({ role: z.string().min(1).max(100) });
export const verificationSentSchema = z.object({ ok: z.literal(true), sent: z.literal(true) });
