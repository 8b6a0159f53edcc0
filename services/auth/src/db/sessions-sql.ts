import type { Sql } from '@routinely/db';

/** A row of `sessions`: one login, one refresh-token family. */
export interface SessionRow {
  id: string;
  tenantId: string;
  userId: string;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
  revokedReason: string | null;
}

const SELECTED = `id, tenant_id as "tenantId", user_id as "userId", created_at as "createdAt",
  expires_at as "expiresAt", revoked_at as "revokedAt", revoked_reason as "revokedReason"`;

type Timestamp = string | Date;
type RawSession = Omit<SessionRow, 'createdAt' | 'expiresAt' | 'revokedAt'> & {
  createdAt: Timestamp;
  expiresAt: Timestamp;
  revokedAt: Timestamp | null;
};

/** The driver hands timestamptz over as text; rows here carry Dates. */
function parsed(raw: RawSession): SessionRow {
  return {
    ...raw,
    createdAt: new Date(raw.createdAt),
    expiresAt: new Date(raw.expiresAt),
    revokedAt: raw.revokedAt === null ? null : new Date(raw.revokedAt),
  };
}

export async function insertSession(sql: Sql, row: SessionRow): Promise<void> {
  await sql.rows(
    `insert into sessions (id, tenant_id, user_id, created_at, expires_at, revoked_at, revoked_reason)
     values (?, ?, ?, ?, ?, ?, ?)`,
    [row.id, row.tenantId, row.userId, row.createdAt, row.expiresAt, row.revokedAt, row.revokedReason],
  );
}

export async function findSession(sql: Sql, tenantId: string, sessionId: string): Promise<SessionRow | undefined> {
  const row = await sql.first<RawSession>(`select ${SELECTED} from sessions where id = ? and tenant_id = ?`, [
    sessionId,
    tenantId,
  ]);
  return row && parsed(row);
}

/** A session not revoked (whatever its tenant: the id comes from a verified token). */
export async function findUnrevokedSession(sql: Sql, sessionId: string): Promise<SessionRow | undefined> {
  const row = await sql.first<RawSession>(`select ${SELECTED} from sessions where id = ? and revoked_at is null`, [
    sessionId,
  ]);
  return row && parsed(row);
}

/** Ids of a user's sessions neither revoked nor expired at `now`. */
export async function liveSessionIdsOfUser(sql: Sql, tenantId: string, userId: string, now: Date): Promise<string[]> {
  const rows = await sql.rows<{ id: string }>(
    'select id from sessions where tenant_id = ? and user_id = ? and revoked_at is null and expires_at > ?',
    [tenantId, userId, now],
  );
  return rows.map((r) => r.id);
}

/** Of `sessionIds`, those neither revoked nor expired at `now`, with whose they are. */
export async function liveSessionsAmong(
  sql: Sql,
  sessionIds: string[],
  now: Date,
): Promise<{ id: string; userId: string; tenantId: string }[]> {
  return sql.rows(
    `select id, user_id as "userId", tenant_id as "tenantId" from sessions
     where id = any(?::uuid[]) and revoked_at is null and expires_at > ?`,
    [sessionIds, now],
  );
}

/** Marks the user's sessions among `sessionIds` revoked, leaving those already revoked as they were. */
export async function revokeSessionRows(
  sql: Sql,
  tenantId: string,
  userId: string,
  sessionIds: string[],
  revokedAt: Date,
  reason: string,
): Promise<void> {
  await sql.rows(
    `update sessions set revoked_at = ?, revoked_reason = ?
     where id = any(?::uuid[]) and tenant_id = ? and user_id = ? and revoked_at is null`,
    [revokedAt, reason, sessionIds, tenantId, userId],
  );
}

/** Sessions revoked after `since`, with when. */
export async function sessionsRevokedSince(sql: Sql, since: Date): Promise<{ id: string; revokedAt: Date }[]> {
  const rows = await sql.rows<{ id: string; revokedAt: Timestamp }>(
    'select id, revoked_at as "revokedAt" from sessions where revoked_at > ?',
    [since],
  );
  return rows.map((r) => ({ id: r.id, revokedAt: new Date(r.revokedAt) }));
}
