import type { Orm } from '@routinely/db';
import { addRpcService, type InternalAuth, type Server } from '@routinely/grpc';
import { AppError } from '@routinely/platform';
import { auth_v1 } from '@routinely/proto';
import { User } from '../db/entities.js';
import { normaliseEmail } from '../domain/accounts.js';
import type { SigningKeyStore } from '../domain/signing-keys.js';

/** The row a lookup key names in the tenant; none for an id that is no UUID (Postgres would reject it). */
function lookupWhere(key: NonNullable<auth_v1.LookupUserRequest['key']>, tenantId: string) {
  if (key.$case === 'email') return { email: normaliseEmail(key.value), tenantId };
  return /^[0-9a-f-]{36}$/i.test(key.value) ? { id: key.value.toLowerCase(), tenantId } : undefined;
}

/**
 * gRPC for other services: the JWKS (to verify tokens locally) and user lookup for calendar sharing.
 * LookupUser only ever searches the tenant inside the caller's verified internal token.
 */
export function addAuthRpc(
  server: Server,
  deps: { orm: Orm; keys: SigningKeyStore; internalAuth: InternalAuth },
): void {
  addRpcService(server, auth_v1.AuthServiceService, deps.internalAuth, {
    getJwks: async () => ({ jwksJson: JSON.stringify(await deps.keys.jwks()) }),
    lookupUser: async (request, caller) => {
      if (!caller.tenantId) throw new AppError('validation_failed', 'The call carries no tenant');
      const key = request.key;
      if (!key?.value) throw new AppError('validation_failed', 'Give user_id or email');
      const where = lookupWhere(key, caller.tenantId);
      const user = where ? await deps.orm.em.fork().findOne(User, where) : null;
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
