import { nameSchemas, timestampOut, uuidOut } from '@routinely/platform';
import { z } from 'zod';
import { newPasswordSchema, passwordProblem } from '../../domain/passwords.js';

const isTimeZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

const timezoneSchema = z.string().max(64).refine(isTimeZone, 'must be an IANA time zone');
const localeSchema = z.string().regex(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/, 'must be a BCP 47 locale tag');
const shortText = (max: number) => z.string().trim().min(1).max(max);

export const userProfileSchema = z.object({
  id: uuidOut(),
  sub: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  display_name: z.string().nullable(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  phone: z.string().nullable(),
  avatar_url: z.string().nullable(),
  timezone: z.string().nullable(),
  locale: z.string().nullable(),
  tenant_id: uuidOut(),
  is_active: z.boolean(),
  is_verified: z.boolean(),
  auth_method: z.enum(['sso', 'local']),
  has_local_password: z.boolean(),
  mfa_enabled: z.boolean(),
  roles: z.array(z.string()),
  permissions: z.array(z.string()),
  extra: z.record(z.string(), z.unknown()),
  created_at: timestampOut(),
  updated_at: timestampOut(),
});

export const tokenResponseSchema = z.object({
  access_token: z.string(),
  refresh_token: z.string(),
  token_type: z.literal('bearer'),
  expires_in: z.number().int(),
  refresh_expires_in: z.number().int(),
  user: userProfileSchema,
});

/** `sso_linked` is present when the provider's admin API is configured: whether the provider account exists too. */
export const registerResponseSchema = tokenResponseSchema.extend({ sso_linked: z.boolean().optional() });

const mfaRequiredSchema = z.object({
  mfa_required: z.literal(true),
  mfa_token: z.string(),
  mfa_methods: z.array(z.enum(['totp', 'backup_code'])),
  expires_in: z.number().int(),
});

export const loginResponseSchema = z.union([tokenResponseSchema, mfaRequiredSchema]);

/** Known registration fields; anything else is kept on the profile as `extra`. */
export const REGISTER_FIELDS = [
  'email',
  'password',
  'name',
  'first_name',
  'last_name',
  'display_name',
  'phone',
  'timezone',
  'locale',
  'tenant_id',
  'invite_token',
] as const;

export const registerBody = z
  .looseObject({
    email: z.email().max(320),
    password: newPasswordSchema,
    name: shortText(200).optional(),
    first_name: shortText(100).optional(),
    last_name: shortText(100).optional(),
    display_name: shortText(200).optional(),
    phone: z.string().trim().max(50).optional(),
    timezone: timezoneSchema.optional(),
    locale: localeSchema.optional(),
    tenant_id: z.uuid().optional(),
    /** From POST /auth/tenant/invites: how to join a tenant whose policy is `invite`. */
    invite_token: z.string().min(1).max(256).optional(),
  })
  .superRefine((body, ctx) => {
    // The password schema judged it alone; here the email is known and counts as guessable. Only when the
    // password alone passed, so a weak one is reported once.
    if (body.password.length < 8 || body.password.length > 128 || passwordProblem(body.password)) return;
    const problem = passwordProblem(body.password, body.email);
    if (problem) ctx.addIssue({ code: 'custom', path: ['password'], message: problem });
  });

export const loginBody = z
  .object({
    email: z.email().max(320).optional(),
    password: z.string().min(1).max(1024).optional(),
    sso_token: z.string().min(1).optional(),
  })
  .superRefine((body, ctx) => {
    if (body.sso_token !== undefined) return;
    if (body.email === undefined) ctx.addIssue({ code: 'custom', path: ['email'], message: 'Field required' });
    if (body.password === undefined) ctx.addIssue({ code: 'custom', path: ['password'], message: 'Field required' });
  });

/** OAuth2 password grant fields (RFC 6749 §4.3); grant_type and scope are accepted and ignored. */
export const loginFormBody = z.looseObject({
  username: z.string().min(1).max(320),
  password: z.string().min(1).max(1024),
  grant_type: z.string().optional(),
  scope: z.string().optional(),
});

// Long enough for any token a client may mistake for a refresh token (an access JWT is answered 401, not 422).
export const refreshBody = z.object({ refresh_token: z.string().min(1).max(8192) });

export const logoutBody = z
  .object({ logout_all: z.boolean().optional(), refresh_token: z.string().min(1).max(8192).optional() })
  .nullish();

export const okSchema = z.object({ ok: z.literal(true) });

export const meResponseSchema = userProfileSchema.extend({
  exp: z.number().int(),
  iat: z.number().int(),
  jti: z.string(),
  iss: z.string().optional(),
  aud: z.union([z.string(), z.array(z.string())]).optional(),
  sid: z.string(),
  typ: z.string(),
});

export const profilePatchBody = z
  .object({
    name: shortText(200).nullable().optional(),
    display_name: shortText(200).nullable().optional(),
    first_name: shortText(100).nullable().optional(),
    last_name: shortText(100).nullable().optional(),
    timezone: timezoneSchema.nullable().optional(),
    locale: localeSchema.nullable().optional(),
    avatar_url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .nullable()
      .optional(),
  })
  .strict();

export const authStatusSchema = z.object({
  sso_available: z.boolean(),
  sso_configured: z.boolean(),
  circuit_breaker: z.object({ state: z.enum(['closed', 'open', 'half_open']), failures: z.number().int() }),
  auth_methods: z.array(z.string()),
  active_auth_method: z.string(),
});

export const authStatusWithUserSchema = authStatusSchema.extend({
  authenticated: z.boolean(),
  user_id: uuidOut().nullable(),
});

export const setLocalPasswordBody = z.object({
  new_password: newPasswordSchema,
  current_password: z.string().min(1).max(1024).optional(),
});

export const setupPasswordBody = z.object({ password: newPasswordSchema });

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

export const mfaVerifyResponse = z.union([tokenResponseSchema, z.object({ mfa_enabled: z.literal(true) })]);

export const mfaDisableBody = z.object({
  password: z.string().min(1).max(1024).optional(),
  code: z.string().trim().min(6).max(20).optional(),
});

export const mfaDisabledSchema = z.object({ ok: z.literal(true), mfa_enabled: z.literal(false) });

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  UserProfile: userProfileSchema,
  TokenResponse: tokenResponseSchema,
  RegisterResponse: registerResponseSchema,
  MfaRequired: mfaRequiredSchema,
  RegisterRequest: registerBody,
  LoginRequest: loginBody,
  Me: meResponseSchema,
  UserProfilePatch: profilePatchBody,
  AuthStatus: authStatusSchema,
  MfaSetup: mfaSetupSchema,
});
