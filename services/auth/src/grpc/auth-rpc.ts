import type { Sql } from '@routinely/db';
import { addRpcService, type InternalAuth, parseRequest } from '@routinely/grpc';
import { AppError, type RpcServiceRegistry } from '@routinely/platform';
import { auth_v1 } from '@routinely/proto';
import { z } from 'zod';
import type { SigningKeyStore } from '../domain/signing-keys.js';
import { findTenantUser } from '../domain/user-lookup.js';

const lookupUserRequest = z.object({
  key: z.discriminatedUnion('$case', [
    z.object({ $case: z.literal('userId'), value: z.string().min(1) }),
    z.object({ $case: z.literal('email'), value: z.string().min(1) }),
  ]),
});

/**
 * gRPC for other services: the JWKS (to verify tokens locally) and user lookup for calendar sharing.
 * LookupUser only ever searches the tenant inside the caller's verified internal token.
 */
export function addAuthRpc(
  server: RpcServiceRegistry,
  deps: { db: Sql; keys: SigningKeyStore; internalAuth: InternalAuth },
): void {
  addRpcService(server, auth_v1.AuthServiceService, deps.internalAuth, {
    getJwks: async () => ({ jwksJson: JSON.stringify(await deps.keys.jwks()) }),
    lookupUser: async (request, caller) => {
      if (!caller.tenantId) throw new AppError('validation_failed', 'The call carries no tenant');
      const { key } = parseRequest(lookupUserRequest, request);
      const user = await findTenantUser(deps.db, caller.tenantId, {
        by: key.$case === 'email' ? 'email' : 'id',
        value: key.value,
      });
      if (!user) return { found: false, user: undefined };
      return {
        found: true,
        user: {
          id: user.id,
          tenantId: user.tenantId,
          email: user.email,
          name: user.name ?? user.displayName ?? '',
          isActive: user.isActive,
        },
      };
    },
  });
}
