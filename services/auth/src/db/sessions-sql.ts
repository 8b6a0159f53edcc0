import { column, type Row, row, type Sql } from '@routinely/db';

/** A row of `sessions`: one login, one refresh-token family. */
const sessionRow = row({
  id: column.uuid,
  tenantId: column.uuid,
  userId: column.uuid,
  createdAt: column.timestamp,
  expiresAt: column.timestamp,
  revokedAt: column.timestamp.nullable(),
  revokedReason: column.text.nullable(),
});
export type SessionRow = Row<typeof sessionRow>;

const SELECTED = `id, tenant_id as "tenantId", user_id as "userId", created_at as "createdAt",
  expires_at as "expiresAt", revoked_at as "revokedAt", revoked_reason as "revokedReason"`;

const idRow = row({ id: column.uuid });
const liveSessionRow = row({ id: column.uuid, userId: column.uuid, tenantId: column.uuid });
const revokedSessionRow = row({ id: column.uuid, revokedAt: column.timestamp });

export async function insertSession(sql: Sql, row: SessionRow): Promise<void> {
  await sql.run(
    `insert into sessions (id, tenant_id, user_id, created_at, expires_at, revoked_at, revoked_reason)
     values (?, ?, ?, ?, ?, ?, ?)`,
    [row.id, row.tenantId, row.userId, row.createdAt, row.expiresAt, row.revokedAt, row.revokedReason],
  );
}

export async function findSession(sql: Sql, tenantId: string, sessionId: string): Promise<SessionRow | undefined> {
  return sql.first(sessionRow, `select ${SELECTED} from sessions where id = ? and tenant_id = ?`, [
    sessionId,
    tenantId,
  ]);
}

/** A session not revoked (whatever its tenant: the id comes from a verified token). */
export async function findUnrevokedSession(sql: Sql, sessionId: string): Promise<SessionRow | undefined> {
  return sql.first(sessionRow, `select ${SELECTED} from sessions where id = ? and revoked_at is null`, [sessionId]);
}

/** Ids of a user's sessions neither revoked nor expired at `now`. */
export async function liveSessionIdsOfUser(sql: Sql, tenantId: string, userId: string, now: Date): Promise<string[]> {
  const rows = await sql.rows(
    idRow,
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
): Promise<Row<typeof liveSessionRow>[]> {
  return sql.rows(
    liveSessionRow,
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
  await sql.run(
    `update sessions set revoked_at = ?, revoked_reason = ?
     where id = any(?::uuid[]) and tenant_id = ? and user_id = ? and revoked_at is null`,
    [revokedAt, reason, sessionIds, tenantId, userId],
  );
}

/** Sessions revoked after `since`, with when. */
export async function sessionsRevokedSince(sql: Sql, since: Date): Promise<Row<typeof revokedSessionRow>[]> {
  return sql.rows(revokedSessionRow, 'select id, revoked_at as "revokedAt" from sessions where revoked_at > ?', [
    since,
  ]);
}
