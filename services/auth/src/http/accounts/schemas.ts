import { nameSchemas, timestampOut, uuidOut } from '@routinely/platform';
import { isValidTimeZone } from '@routinely/time';
import { z } from 'zod';
import { newPasswordSchema } from '../../domain/passwords.js';

export const timezoneSchema = z.string().max(64).refine(isValidTimeZone, 'must be an IANA time zone');
export const localeSchema = z.string().regex(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/, 'must be a BCP 47 locale tag');
export const shortText = (max: number) => z.string().trim().min(1).max(max);

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

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  UserProfile: userProfileSchema,
  Me: meResponseSchema,
  UserProfilePatch: profilePatchBody,
  AuthStatus: authStatusSchema,
});
