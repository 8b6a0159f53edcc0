import type { Sql } from '@routinely/db';
import { type authEvents, enqueue, makeEvent } from '@routinely/events';
import { permissionsForRoles } from '@routinely/platform';
import type { UserRow } from '../db/users-sql.js';

/** The contract's UserProfile. */
export interface UserProfile {
  id: string;
  sub: string;
  email: string;
  name: string | null;
  display_name: string | null;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  avatar_url: string | null;
  timezone: string | null;
  locale: string | null;
  tenant_id: string;
  is_active: boolean;
  is_verified: boolean;
  auth_method: 'sso' | 'local';
  has_local_password: boolean;
  mfa_enabled: boolean;
  roles: string[];
  permissions: string[];
  extra: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

export function toProfile(user: UserRow): UserProfile {
  return {
    id: user.id,
    sub: user.id,
    email: user.email,
    name: user.name ?? null,
    display_name: user.displayName ?? null,
    first_name: user.firstName ?? null,
    last_name: user.lastName ?? null,
    phone: user.phone ?? null,
    avatar_url: user.avatarUrl ?? null,
    timezone: user.timezone ?? null,
    locale: user.locale ?? null,
    tenant_id: user.tenantId,
    is_active: user.isActive,
    is_verified: user.isVerified,
    auth_method: user.authMethod === 'sso' ? 'sso' : 'local',
    has_local_password: !!user.passwordHash,
    mfa_enabled: user.mfaEnabled,
    roles: [...user.roles],
    permissions: permissionsForRoles(user.roles),
    extra: user.extra ?? {},
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
  };
}

/** The user as it is now, as an auth event in the caller's transaction (registered, or updated). */
export async function enqueueUserEvent(
  sql: Sql,
  definition: typeof authEvents.userRegistered | typeof authEvents.userUpdated,
  user: UserRow,
  at: Date,
): Promise<void> {
  await enqueue(
    sql,
    makeEvent(definition, { tenantId: user.tenantId, userId: user.id, at }, { user: toEventUser(user) }),
  );
}

/** The event catalog's view of a user. */
function toEventUser(user: UserRow) {
  return {
    id: user.id,
    tenant_id: user.tenantId,
    email: user.email,
    name: user.name ?? user.displayName ?? null,
    timezone: user.timezone ?? null,
    is_active: user.isActive,
  };
}

/**
 * GET /auth/me is the hottest read (bench target 4,000 req/s): profiles are kept briefly in memory and
 * dropped on this process's own writes. Another replica's write is seen after at most `ttlMs`.
 */
export class ProfileCache {
  private readonly entries = new Map<string, { user: UserRow; until: number }>();
  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly maxEntries = 10_000,
  ) {}

  get(userId: string): UserRow | undefined {
    const entry = this.entries.get(userId);
    if (!entry) return undefined;
    if (entry.until <= this.now()) {
      this.entries.delete(userId);
      return undefined;
    }
    return entry.user;
  }

  set(user: UserRow): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(user.id, { user, until: this.now() + this.ttlMs });
  }

  invalidate(userId: string): void {
    this.entries.delete(userId);
  }
}
