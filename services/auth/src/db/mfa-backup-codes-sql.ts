import type { Sql } from '@routinely/db';

/** A row of `mfa_backup_codes`: a single-use code, stored as a keyed hash. */
export interface BackupCodeRow {
  id: string;
  tenantId: string;
  userId: string;
  codeHash: string;
  createdAt: Date;
  usedAt: Date | null;
}

export async function deleteBackupCodes(sql: Sql, tenantId: string, userId: string): Promise<void> {
  await sql.run('delete from mfa_backup_codes where user_id = ? and tenant_id = ?', [userId, tenantId]);
}

export async function insertBackupCodes(sql: Sql, rows: BackupCodeRow[]): Promise<void> {
  if (rows.length === 0) return;
  await sql.run(
    `insert into mfa_backup_codes (id, tenant_id, user_id, code_hash, created_at, used_at)
     values ${rows.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`,
    rows.flatMap((r) => [r.id, r.tenantId, r.userId, r.codeHash, r.createdAt, r.usedAt]),
  );
}

/** Marks the user's unused code with this hash used; answers how many rows changed (0: no such unused code). */
export async function useBackupCode(
  sql: Sql,
  tenantId: string,
  userId: string,
  codeHash: string,
  usedAt: Date,
): Promise<number> {
  return sql.run(
    `update mfa_backup_codes set used_at = ?
     where user_id = ? and tenant_id = ? and code_hash = ? and used_at is null returning id`,
    [usedAt, userId, tenantId, codeHash],
  );
}
