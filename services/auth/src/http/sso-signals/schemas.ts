import { z } from 'zod';

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

export const backChannelLogoutForm = backChannelLogoutBody.nullish();
export const sessionsEnded = z.null().describe('Sessions ended');
export const transparentGif = z
  .custom<Buffer>()
  .meta({ type: 'string', format: 'binary', description: 'A 1x1 transparent GIF' });

export const idpSignatureHeaders = z.looseObject({
  'x-idp-signature': z
    .string()
    .optional()
    .describe('t=<unix seconds>,v1=<hex HMAC-SHA256(SSO_WEBHOOK_SECRET, t + "." + raw body)>; 300 s window'),
});
