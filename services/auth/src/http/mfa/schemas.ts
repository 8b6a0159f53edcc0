import { answerHeaders, nameSchemas } from '@routinely/platform';
import { z } from 'zod';
import { sometimesSessionCookies, tokenResponseSchema } from '../sessions/schemas.js';

export const mfaSetupSchema = z.object({
  secret: z.string(),
  otpauth_url: z.string(),
  qr_code_url: z.string(),
  backup_codes: z.array(z.string()),
});

export const mfaVerifyBody = z.object({
  code: z.string().trim().min(6).max(20),
  mfa_token: z.string().min(1).max(512).optional(),
});

export const mfaVerifyResponse = answerHeaders(
  z.union([tokenResponseSchema, z.object({ mfa_enabled: z.literal(true) })]),
  sometimesSessionCookies,
);

export const mfaDisableBody = z.object({
  password: z.string().min(1).max(1024).optional(),
  code: z.string().trim().min(6).max(20).optional(),
});

export const mfaDisabledSchema = z.object({ ok: z.literal(true), mfa_enabled: z.literal(false) });

// Named in the OpenAPI document (components.schemas).
nameSchemas({ MfaSetup: mfaSetupSchema });
