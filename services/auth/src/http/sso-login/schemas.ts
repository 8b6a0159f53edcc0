import { timestampOut } from '@routinely/platform';
import { z } from 'zod';

export const returnUrlQuery = z.object({
  return_url: z
    .string()
    .max(2048)
    .nullish()
    .describe(
      'Relative path, or an absolute URL of an allowed origin; default `/home` (the console shows the outcome)',
    ),
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

export const providerRedirect = z.null().describe('Redirect to the identity provider');
export const logoutRedirect = z.null().describe('Redirect to the provider logout, or to / without one');
