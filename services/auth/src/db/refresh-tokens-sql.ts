import { column, type Row, row, type Sql } from '@routinely/db';

/** A row of `refresh_tokens`: the sha256 of a token of a session's family; `usedAt` is set on rotation. */
const refreshTokenRow = row({
  id: column.uuid,
  tenantId: column.uuid,
  sessionId: column.uuid,
  userId: column.uuid,
  tokenHash: column.text,
  createdAt: column.timestamp,
  usedAt: column.timestamp.nullable(),
});
export type RefreshTokenRow = Row<typeof refreshTokenRow>;

const SELECTED = `id, tenant_id as "tenantId", session_id as "sessionId", user_id as "userId",
  token_hash as "tokenHash", created_at as "createdAt", used_at as "usedAt"`;

const usedAtRow = row({ usedAt: column.timestamp.nullable() });

export async function insertRefreshToken(sql: Sql, row: RefreshTokenRow): Promise<void> {
  await sql.run(
    `insert into refresh_tokens (id, tenant_id, session_id, user_id, token_hash, created_at, used_at)
     values (?, ?, ?, ?, ?, ?, ?)`,
    [row.id, row.tenantId, row.sessionId, row.userId, row.tokenHash, row.createdAt, row.usedAt],
  );
}

/** The token with this hash; `owner` narrows it to one user's. */
export async function findRefreshToken(
  sql: Sql,
  tokenHash: string,
  owner?: { tenantId: string; userId: string },
): Promise<RefreshTokenRow | undefined> {
  return owner
    ? sql.first(
        refreshTokenRow,
        `select ${SELECTED} from refresh_tokens where token_hash = ? and tenant_id = ? and user_id = ?`,
        [tokenHash, owner.tenantId, owner.userId],
      )
    : sql.first(refreshTokenRow, `select ${SELECTED} from refresh_tokens where token_hash = ?`, [tokenHash]);
}

/**
 * Marks a token used if it is not yet: the atomic claim of a rotation (of two concurrent uses, one gets 1
 * and the other 0).
 */
export async function claimRefreshToken(sql: Sql, id: string, usedAt: Date): Promise<number> {
  return sql.run('update refresh_tokens set used_at = ? where id = ? and used_at is null returning id', [usedAt, id]);
}

/** When a token was rotated (null while it was not); read after a lost claim, so it sees the winner's commit. */
export async function refreshTokenUsedAt(sql: Sql, id: string): Promise<Date | null> {
  const row = await sql.first(usedAtRow, 'select used_at as "usedAt" from refresh_tokens where id = ?', [id]);
  return row?.usedAt ?? null;
}
