import { createRpcClient, type InternalAuth } from '@routinely/grpc';
import { auth_v1 } from '@routinely/proto';
import type { DirectoryUser, UserDirectory } from '../domain/user-directory.js';

/** The real UserDirectory: the auth service's LookupUser over gRPC, acting as the requesting user. */
export class AuthUserDirectory implements UserDirectory {
  private readonly client;

  constructor(address: string, internalAuth: InternalAuth, deadlineMs = 3_000) {
    this.client = createRpcClient(auth_v1.AuthServiceService, address, internalAuth, {
      defaultDeadlineMs: deadlineMs,
    });
  }

  findById(tenantId: string, userId: string, actingUserId?: string): Promise<DirectoryUser | null> {
    return this.lookup(tenantId, actingUserId, { $case: 'userId', value: userId });
  }

  findByEmail(tenantId: string, email: string, actingUserId?: string): Promise<DirectoryUser | null> {
    return this.lookup(tenantId, actingUserId, { $case: 'email', value: email });
  }

  close(): void {
    this.client.close();
  }

  private async lookup(
    tenantId: string,
    actingUserId: string | undefined,
    key: auth_v1.LookupUserRequest['key'],
  ): Promise<DirectoryUser | null> {
    // The tenant rides in the signed service token, so the auth service scopes the lookup to it.
    const response = await this.client.lookupUser({ key }, { actor: { tenantId, userId: actingUserId ?? null } });
    const user = response.user;
    // Defence in depth: a user of another tenant is as good as unknown, whatever the server answered.
    if (!response.found || !user || user.tenantId !== tenantId) return null;
    return {
      id: user.id,
      tenantId: user.tenantId,
      email: user.email,
      name: user.name || null,
      isActive: user.isActive,
    };
  }
}
