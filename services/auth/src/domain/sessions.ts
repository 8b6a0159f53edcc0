import type { Sql } from '@routinely/db';
import { authEvents, enqueue, makeEvent, type OutboxRelay } from '@routinely/events';
import {
  AppError,
  type Clock,
  permissionsForRoles,
  type RevocationStore,
  randomToken,
  sha256,
} from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import type { AuthConfig } from '../config.js';
import {
  claimRefreshToken,
  findRefreshToken,
  insertRefreshToken,
  refreshTokenUsedAt,
} from '../db/refresh-tokens-sql.js';
import {
  findSession,
  findUnrevokedSession,
  insertSession,
  liveSessionIdsOfUser,
  revokeSessionRows,
  sessionsRevokedSince,
} from '../db/sessions-sql.js';
import { findUser, type UserRow } from '../db/users-sql.js';
import { toProfile, type UserProfile } from './profile.js';
import type { SigningKeyStore } from './signing-keys.js';

export interface TokenResponse {
  access_token: string;
  refresh_token: string;
  token_type: 'bearer';
  expires_in: number;
  refresh_expires_in: number;
  user: UserProfile;
}

export interface SessionDeps {
  db: Sql;
  keys: SigningKeyStore;
  clock: Clock;
  config: AuthConfig;
  revocations: RevocationStore;
  relay: Pick<OutboxRelay, 'kick'>;
}

const invalidRefresh = () => new AppError('invalid_token', 'Invalid or expired refresh token');

/**
 * Sessions are refresh-token families (docs/adr/011): a login opens one, every refresh rotates its token,
 * a second use of a rotated token ends the family, and ending a session also puts its id in the shared
 * revocation store so the session's access tokens fail at once on every service.
 */
export class SessionService {
  constructor(private readonly deps: SessionDeps) {}

  private get accessTtl(): number {
    return this.deps.config.ACCESS_TOKEN_TTL_SECONDS;
  }

  /**
   * Opens a session for a user whose credentials were checked, and returns the contract's token response.
   * `alongside` writes rows that belong to the new session (e.g. its SSO side) in the same transaction.
   */
  async open(user: UserRow, alongside?: (sql: Sql, sessionId: string) => Promise<void>): Promise<TokenResponse> {
    const now = this.deps.clock.now();
    const sessionId = uuidv7();
    const refresh = randomToken();
    const expiresAt = new Date(now.getTime() + this.deps.config.REFRESH_TOKEN_TTL_SECONDS * 1000);
    await this.deps.db.transaction(async (sql) => {
      await insertSession(sql, {
        id: sessionId,
        tenantId: user.tenantId,
        userId: user.id,
        createdAt: now,
        expiresAt,
        revokedAt: null,
        revokedReason: null,
      });
      await this.addRefreshToken(sql, user, sessionId, refresh);
      await alongside?.(sql, sessionId);
    });
    return this.respond(user, sessionId, refresh, expiresAt);
  }

  /**
   * Rotates a refresh token. A token already used is reuse: the whole family is revoked and the call fails,
   * unless the rotation was at most REFRESH_REUSE_GRACE_S ago (two tabs, or two requests of one client, that
   * refresh at once): then the caller gets a sibling token of the same family (docs/adr/011).
   */
  async refresh(presented: string): Promise<TokenResponse> {
    const now = this.deps.clock.now();
    const row = await findRefreshToken(this.deps.db, sha256(presented));
    if (!row) throw invalidRefresh();
    const session = await findSession(this.deps.db, row.tenantId, row.sessionId);
    if (!session || session.revokedAt || session.expiresAt.getTime() <= now.getTime()) throw invalidRefresh();
    const user = await findUser(this.deps.db, row.tenantId, row.userId);
    if (!user?.isActive) throw invalidRefresh();
    const next = randomToken();
    const rotated = await this.deps.db.transaction(async (sql) => {
      // The conditional update is the atomic claim: of two concurrent uses, one wins; the other reads when
      // the winner rotated it (its commit is visible once the claim stopped waiting on its row lock).
      const claimed = await claimRefreshToken(sql, row.id, now);
      if (claimed === 0 && !this.withinGrace(await refreshTokenUsedAt(sql, row.id), now)) return false;
      await this.addRefreshToken(sql, user, session.id, next);
      return true;
    });
    if (!rotated) {
      await this.revoke(user.tenantId, user.id, [session.id], 'refresh_token_reuse');
      throw new AppError('invalid_token', 'Refresh token already used; the session has been revoked');
    }
    return this.respond(user, session.id, next, session.expiresAt);
  }

  /** A rotation this recent makes a second use of its token a sibling refresh, not reuse. */
  private withinGrace(usedAt: Date | null, now: Date): boolean {
    const grace = this.deps.config.REFRESH_REUSE_GRACE_S;
    // Another replica's clock may be a little ahead: a rotation "in the future" is as recent as can be.
    return usedAt !== null && grace > 0 && now.getTime() - usedAt.getTime() <= grace * 1000;
  }

  /** The session a refresh token belongs to, if it is the given user's. */
  async sessionOfRefreshToken(presented: string, tenantId: string, userId: string): Promise<string | undefined> {
    const row = await findRefreshToken(this.deps.db, sha256(presented), { tenantId, userId });
    return row?.sessionId;
  }

  /** When a live session ends (its refresh-token family's absolute expiry), or undefined if it is over. */
  async expiryOf(sessionId: string): Promise<Date | undefined> {
    const row = await findUnrevokedSession(this.deps.db, sessionId);
    if (!row || row.expiresAt.getTime() <= this.deps.clock.now().getTime()) return undefined;
    return row.expiresAt;
  }

  /** Every live session of a user (for logout_all and password changes), minus `except`. */
  async liveSessions(tenantId: string, userId: string, except?: string): Promise<string[]> {
    const ids = await liveSessionIdsOfUser(this.deps.db, tenantId, userId, this.deps.clock.now());
    return ids.filter((id) => id !== except);
  }

  /** Ends sessions in the database (with an auth.session.revoked event) and in the shared revocation store. */
  async revoke(tenantId: string, userId: string, sessionIds: string[], reason: string): Promise<void> {
    if (sessionIds.length === 0) return;
    const now = this.deps.clock.now();
    // The store first: an access token must stop working even if the database write below fails.
    await this.deps.revocations.revokeSessions(sessionIds, this.accessTtl);
    await this.deps.db.transaction(async (sql) => {
      await revokeSessionRows(sql, tenantId, userId, sessionIds, now, reason);
      await enqueue(
        sql,
        makeEvent(
          authEvents.sessionRevoked,
          { tenantId, userId, at: now },
          { user_id: userId, session_ids: sessionIds, reason },
        ),
      );
    });
    this.deps.relay.kick();
  }

  /**
   * Re-adds sessions revoked within the last access-token lifetime to the store, so a process restarted
   * with an in-memory store does not forget a recent logout.
   */
  async restoreRevocations(): Promise<number> {
    const now = this.deps.clock.now().getTime();
    const since = new Date(now - this.accessTtl * 1000);
    const rows = await sessionsRevokedSince(this.deps.db, since);
    for (const row of rows) {
      const left = this.accessTtl - Math.floor((now - row.revokedAt.getTime()) / 1000);
      if (left > 0) await this.deps.revocations.revokeSessions([row.id], left);
    }
    return rows.length;
  }

  private async addRefreshToken(sql: Sql, user: UserRow, sessionId: string, token: string): Promise<void> {
    await insertRefreshToken(sql, {
      id: uuidv7(),
      tenantId: user.tenantId,
      sessionId,
      userId: user.id,
      tokenHash: sha256(token),
      createdAt: this.deps.clock.now(),
      usedAt: null,
    });
  }

  private async respond(user: UserRow, sessionId: string, refresh: string, expiresAt: Date): Promise<TokenResponse> {
    const { config } = this.deps;
    const accessToken = await this.deps.keys.sign(
      {
        email: user.email,
        tenant_id: user.tenantId,
        roles: [...user.roles],
        permissions: permissionsForRoles(user.roles),
        sid: sessionId,
        typ: 'access',
        iss: config.JWT_ISSUER,
        aud: config.JWT_AUDIENCE,
      },
      user.id,
      this.accessTtl,
      uuidv7(),
    );
    return {
      access_token: accessToken,
      refresh_token: refresh,
      token_type: 'bearer',
      expires_in: this.accessTtl,
      refresh_expires_in: Math.max(0, Math.floor((expiresAt.getTime() - this.deps.clock.now().getTime()) / 1000)),
      user: toProfile(user),
    };
  }
}
