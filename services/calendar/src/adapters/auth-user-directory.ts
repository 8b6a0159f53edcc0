import { createRpcClient, type InternalAuth } from '@routinely/grpc';
import { AppError } from '@routinely/platform';
import { auth_v1 } from '@routinely/proto';
import { z } from 'zod';
import type { DirectoryUser, UserDirectory } from '../domain/user-directory.js';

/**
 * What a LookupUser answer must hold before sharing acts on it. Proto3 fills absent scalars with defaults, so
 * the types alone say little: an empty id or tenant is an answer we cannot use, not a user.
 */
const lookupUserAnswer = z.object({
  found: z.boolean(),
  user: z
    .object({
      id: z.string().min(1),
      tenantId: z.string().min(1),
      email: z.string(),
      name: z.string(),
      isActive: z.boolean(),
    })
    .optional(),
});

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
    const answer = lookupUserAnswer.safeParse(
      await this.client.lookupUser({ key }, { actor: { tenantId, userId: actingUserId ?? null } }),
    );
    // An answer we cannot read is the auth service failing, not a user missing (which would read as a 404).
    if (!answer.success) throw new AppError('service_unavailable', 'The user directory gave an unreadable answer');
    const { found, user } = answer.data;
    // Defence in depth: a user of another tenant is as good as unknown, whatever the server answered.
    if (!found || !user || user.tenantId !== tenantId) return null;
    return {
      id: user.id,
      tenantId: user.tenantId,
      email: user.email,
      name: user.name || null,
      isActive: user.isActive,
    };
  }
}
