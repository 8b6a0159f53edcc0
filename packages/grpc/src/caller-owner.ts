import { forbidden, hasPermission, type Owner, type Permission } from '@routinely/platform';
import type { CallerIdentity } from './identity.js';

/**
 * The acting user of a call, taken only from the verified service token; a call without one, or whose user
 * lacks one of the permissions the matching HTTP route needs, is PERMISSION_DENIED.
 */
export function ownerOfCaller(caller: CallerIdentity, needed: readonly Permission[]): Owner {
  if (!caller.tenantId || !caller.userId) {
    throw forbidden('The call must act for a user (tenant and user in the service token)');
  }
  if (!hasPermission(caller.permissions, needed)) throw forbidden(`Missing permission ${needed.join(' or ')}`);
  return { tenantId: caller.tenantId, userId: caller.userId };
}
