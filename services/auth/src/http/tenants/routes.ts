import { ownerOf } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AuthContext } from '../../domain/context.js';
import type { TenantInviteRow, TenantSettings } from '../../domain/tenants.js';
import {
  createdInviteSchema,
  inviteBody,
  inviteList,
  inviteParams,
  inviteRevoked,
  tenantPatchBody,
  tenantSchema,
} from './schemas.js';

const tags = ['tenant'];
const adminOnly = { permission: 'SERVICE_ADMIN' } as const;
const toTenant = (s: TenantSettings) => ({
  tenant_id: s.tenantId,
  registration: s.registration,
  allowed_email_domains: s.allowedEmailDomains,
  updated_at: s.updatedAt.toISOString(),
});
const toInvite = (row: TenantInviteRow) => ({
  id: row.id,
  email: row.email ?? null,
  role: row.role === 'admin' ? ('admin' as const) : ('user' as const),
  expires_at: row.expiresAt.toISOString(),
  created_at: row.createdAt.toISOString(),
});

/** The caller's tenant: its registration policy and invitations (contract "Joining a tenant"), admins only. */
export function tenantRoutes(ctx: AuthContext): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.get(
      '/auth/tenant',
      {
        config: adminOnly,
        schema: {
          operationId: 'getTenant',
          tags,
          summary: "The caller's tenant and its registration policy",
          response: { 200: tenantSchema },
        },
      },
      async (request) => toTenant(await ctx.tenants.settings(ownerOf(request).tenantId)),
    );

    r.patch(
      '/auth/tenant',
      {
        config: adminOnly,
        schema: {
          operationId: 'updateTenant',
          tags,
          summary: "Change the tenant's registration policy (invite, domain or open) and allowed email domains",
          body: tenantPatchBody,
          response: { 200: tenantSchema },
        },
      },
      async (request) =>
        toTenant(
          await ctx.tenants.update(ownerOf(request).tenantId, {
            registration: request.body.registration,
            allowedEmailDomains: request.body.allowed_email_domains,
          }),
        ),
    );

    r.post(
      '/auth/tenant/invites',
      {
        config: adminOnly,
        schema: {
          operationId: 'createInvite',
          description:
            "A single-use invitation (default lifetime 7 days), bound to `email` when given; its `token` goes in the register body's `invite_token`.",
          tags,
          summary: 'Invite someone to the tenant (single use; bound to the email when given)',
          body: inviteBody,
          response: { 201: createdInviteSchema },
        },
      },
      async (request, reply) => {
        const owner = ownerOf(request);
        const { invite, token } = await ctx.tenants.createInvite(owner.tenantId, owner.userId, {
          email: request.body.email,
          role: request.body.role,
          expiresInSeconds: request.body.expires_in_s,
        });
        return reply.status(201).send({ ...toInvite(invite), token });
      },
    );

    r.get(
      '/auth/tenant/invites',
      {
        config: adminOnly,
        schema: {
          operationId: 'listInvites',
          tags,
          summary: 'Invitations not yet used, revoked or expired',
          response: { 200: inviteList },
        },
      },
      async (request) => (await ctx.tenants.listInvites(ownerOf(request).tenantId)).map(toInvite),
    );

    r.delete(
      '/auth/tenant/invites/:invite_id',
      {
        config: adminOnly,
        schema: {
          operationId: 'revokeInvite',
          tags,
          summary: 'Revoke an invitation',
          params: inviteParams,
          response: { 204: inviteRevoked },
        },
      },
      async (request, reply) => {
        await ctx.tenants.revokeInvite(ownerOf(request).tenantId, request.params.invite_id);
        return reply.status(204).send(null);
      },
    );
  };
}
