import { type AnswerHeader, answerHeaders, nameSchemas } from '@routinely/platform';
import { z } from 'zod';
import { newPasswordSchema, passwordProblem } from '../../domain/passwords.js';
import { localeSchema, shortText, timezoneSchema, userProfileSchema } from '../accounts/schemas.js';

/** The web clients' two cookies (contract, "Web console"), set by every answer that opens or rotates a session. */
const SESSION_COOKIES_HEADER = {
  description:
    'Two HttpOnly cookies for web clients: `routinely_session` (the access token; `Path=/`, `SameSite=Lax`, as long as the access token lives) and `routinely_refresh` (the refresh token; `Path=/api/v1/auth`, `SameSite=Strict`, as long as its session lives); both `Secure` on https',
  example: 'routinely_session=eyJhbGciOiJFZERTQSJ9...; Max-Age=900; Path=/; HttpOnly; SameSite=Lax',
} satisfies AnswerHeader;
/** Answers that are a session only sometimes (a login that asks for the MFA step sets no cookie). */
export const sometimesSessionCookies = { 'Set-Cookie': { ...SESSION_COOKIES_HEADER, required: false } };

const tokenResponseShape = z.object({
  access_token: z.string(),
  refresh_token: z.string(),
  token_type: z.literal('bearer'),
  expires_in: z.number().int(),
  refresh_expires_in: z.number().int(),
  user: userProfileSchema,
});
export const tokenResponseSchema = answerHeaders(tokenResponseShape, { 'Set-Cookie': SESSION_COOKIES_HEADER });

/** `sso_linked` is present when the provider's admin API is configured: whether the provider account exists too. */
export const registerResponseSchema = answerHeaders(tokenResponseShape.extend({ sso_linked: z.boolean().optional() }), {
  'Set-Cookie': SESSION_COOKIES_HEADER,
});

const mfaRequiredSchema = z.object({
  mfa_required: z.literal(true),
  mfa_token: z.string(),
  mfa_methods: z.array(z.enum(['totp', 'backup_code'])),
  expires_in: z.number().int(),
});

export const loginResponseSchema = answerHeaders(
  z.union([tokenResponseSchema, mfaRequiredSchema]),
  sometimesSessionCookies,
);

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
// No body, or no `refresh_token`: the refresh cookie is the credential (contract, "Web console").
export const refreshBody = z.object({ refresh_token: z.string().min(1).max(8192).optional() }).nullish();

/** The cookie refresh's answer: the new tokens went into the cookies only. */
const cookieRefreshResponseSchema = tokenResponseShape.pick({
  expires_in: true,
  refresh_expires_in: true,
  user: true,
});
export const refreshResponseSchema = answerHeaders(z.union([tokenResponseSchema, cookieRefreshResponseSchema]), {
  'Set-Cookie': SESSION_COOKIES_HEADER,
});

export const logoutBody = z
  .object({ logout_all: z.boolean().optional(), refresh_token: z.string().min(1).max(8192).optional() })
  .nullish();

export const okSchema = z.object({ ok: z.literal(true) });

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  TokenResponse: tokenResponseSchema,
  RegisterResponse: registerResponseSchema,
  MfaRequired: mfaRequiredSchema,
  CookieRefreshResponse: cookieRefreshResponseSchema,
  RegisterRequest: registerBody,
  LoginRequest: loginBody,
});
