import { nameSchemas, problemSchema } from '@routinely/platform';
import { z } from 'zod';

const backChannelLogoutBody = z.object({ logout_token: z.string().max(16_384).optional() });
/** A problem (contract, every error) that also carries the OIDC `error` and `error_description` members. */
const backChannelLogoutProblem = problemSchema
  .extend({ error: z.literal('invalid_request'), error_description: z.string() })
  .meta({
    examples: [
      {
        type: 'urn:routinely:problem:invalid_request',
        title: 'Invalid request',
        status: 400,
        detail: 'logout_token missing',
        code: 'invalid_request',
        request_id: '0f6c2a52-4c6b-4f4a-9a43-0c7f3f1f7b1e',
        error: 'invalid_request',
        error_description: 'logout_token missing',
      },
    ],
  });

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
/** The route's 400, described where the document lists its codes. */
export const backChannelLogoutRefused = backChannelLogoutProblem.describe(
  '`invalid_request`: the logout token is missing, malformed, not signed by the provider, or fails a claim check (OIDC Back-Channel Logout 1.0: `error` and `error_description` are sent too)',
);

// Named in the OpenAPI document (components.schemas).
nameSchemas({ BackChannelLogoutProblem: backChannelLogoutProblem });
