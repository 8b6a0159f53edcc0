import { nameSchemas } from '@routinely/platform';
import { z } from 'zod';
import { REGISTRATION_POLICIES } from '../../domain/tenants.js';

const DEFAULT_INVITE_SECONDS = 7 * 24 * 3600;

const emailDomain = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'must be a domain name');

export const tenantSchema = z.object({
  tenant_id: z.uuid(),
  registration: z.enum(REGISTRATION_POLICIES),
  allowed_email_domains: z.array(z.string()),
  updated_at: z.iso.datetime(),
});
export const tenantPatchBody = z
  .object({
    registration: z.enum(REGISTRATION_POLICIES).optional(),
    allowed_email_domains: z.array(emailDomain).max(100).optional(),
  })
  .strict();
export const inviteBody = z
  .object({
    email: z.email().max(320).optional(),
    role: z.enum(['user', 'admin']).default('user'),
    expires_in_s: z
      .number()
      .int()
      .min(60)
      .max(90 * 24 * 3600)
      .default(DEFAULT_INVITE_SECONDS),
  })
  .strict()
  // No body at all is an invitation for anyone, role user, valid 7 days.
  .prefault({});
const inviteSchema = z.object({
  id: z.uuid(),
  email: z.string().nullable(),
  role: z.enum(['user', 'admin']),
  expires_at: z.iso.datetime(),
  created_at: z.iso.datetime(),
});
export const createdInviteSchema = inviteSchema.extend({
  token: z.string().describe('Shown once: send it to the invitee, who registers with invite_token'),
});

export const inviteList = z.array(inviteSchema);
export const inviteParams = z.object({ invite_id: z.uuid() });
export const inviteRevoked = z.null();

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  Tenant: tenantSchema,
  Invite: inviteSchema,
  InviteWithToken: createdInviteSchema,
});
