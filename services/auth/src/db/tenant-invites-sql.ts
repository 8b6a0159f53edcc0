import { column, type Row, row, type Sql } from '@routinely/db';

/** A row of `tenant_invites`: a single-use invitation; only the token's sha256 is stored. */
const tenantInviteRow = row({
  id: column.uuid,
  tenantId: column.uuid,
  tokenHash: column.text,
  /** When set, only this (lower-cased) email may use the invitation. */
  email: column.text.nullable(),
  role: column.text,
  createdBy: column.uuid,
  createdAt: column.timestamp,
  expiresAt: column.timestamp,
  usedAt: column.timestamp.nullable(),
  usedBy: column.uuid.nullable(),
  revokedAt: column.timestamp.nullable(),
});
export type TenantInviteRow = Row<typeof tenantInviteRow>;

const SELECTED = `id, tenant_id as "tenantId", token_hash as "tokenHash", email, role, created_by as "createdBy",
  created_at as "createdAt", expires_at as "expiresAt", used_at as "usedAt", used_by as "usedBy",
  revoked_at as "revokedAt"`;

export async function insertInvite(sql: Sql, row: TenantInviteRow): Promise<void> {
  await sql.run(
    `insert into tenant_invites
     (id, tenant_id, token_hash, email, role, created_by, created_at, expires_at, used_at, used_by, revoked_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      row.id,
      row.tenantId,
      row.tokenHash,
      row.email,
      row.role,
      row.createdBy,
      row.createdAt,
      row.expiresAt,
      row.usedAt,
      row.usedBy,
      row.revokedAt,
    ],
  );
}

/** Invitations not used, revoked or expired at `now`, newest first (at most `limit`). */
export async function listUsableInvites(
  sql: Sql,
  tenantId: string,
  now: Date,
  limit: number,
): Promise<TenantInviteRow[]> {
  return sql.rows(
    tenantInviteRow,
    `select ${SELECTED} from tenant_invites
     where tenant_id = ? and used_at is null and revoked_at is null and expires_at > ?
     order by created_at desc limit ?`,
    [tenantId, now, limit],
  );
}

/** Revokes an invitation still unused and unrevoked; answers how many rows changed. */
export async function revokeInviteRow(sql: Sql, tenantId: string, inviteId: string, now: Date): Promise<number> {
  return sql.run(
    `update tenant_invites set revoked_at = ?
     where id = ? and tenant_id = ? and used_at is null and revoked_at is null returning id`,
    [now, inviteId, tenantId],
  );
}

export async function findInviteByToken(
  sql: Sql,
  tenantId: string,
  tokenHash: string,
): Promise<TenantInviteRow | undefined> {
  return sql.first(tenantInviteRow, `select ${SELECTED} from tenant_invites where token_hash = ? and tenant_id = ?`, [
    tokenHash,
    tenantId,
  ]);
}

/** Marks an invitation used by `usedBy` if nobody used it yet: the claim of one of two racing sign-ups. */
export async function claimInvite(sql: Sql, inviteId: string, usedBy: string, now: Date): Promise<number> {
  return sql.run('update tenant_invites set used_at = ?, used_by = ? where id = ? and used_at is null returning id', [
    now,
    usedBy,
    inviteId,
  ]);
}
