import type { Sql } from '@routinely/db';

/** A row of `sso_login_states`: one started browser login (single-use state, nonce, sealed PKCE verifier). */
export interface SsoLoginStateRow {
  stateHash: string;
  browserHash: string;
  nonce: string;
  codeVerifier: string;
  returnUrl: string;
  tenantId: string;
  expiresAt: Date;
  consumedAt: Date | null;
}

type RawLoginState = Omit<SsoLoginStateRow, 'expiresAt' | 'consumedAt'> & {
  expiresAt: string | Date;
  consumedAt: string | Date | null;
};

export async function deleteLoginStatesExpiredBefore(sql: Sql, before: Date): Promise<void> {
  await sql.rows('delete from sso_login_states where expires_at < ?', [before]);
}

export async function insertLoginState(sql: Sql, row: SsoLoginStateRow): Promise<void> {
  await sql.rows(
    `insert into sso_login_states
     (state_hash, browser_hash, nonce, code_verifier, return_url, tenant_id, expires_at, consumed_at)
     values (?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      row.stateHash,
      row.browserHash,
      row.nonce,
      row.codeVerifier,
      row.returnUrl,
      row.tenantId,
      row.expiresAt,
      row.consumedAt,
    ],
  );
}

export async function findLoginState(sql: Sql, stateHash: string): Promise<SsoLoginStateRow | undefined> {
  const row = await sql.first<RawLoginState>(
    `select state_hash as "stateHash", browser_hash as "browserHash", nonce, code_verifier as "codeVerifier",
     return_url as "returnUrl", tenant_id as "tenantId", expires_at as "expiresAt", consumed_at as "consumedAt"
     from sso_login_states where state_hash = ?`,
    [stateHash],
  );
  // The driver hands timestamptz over as text; rows here carry Dates.
  return (
    row && {
      ...row,
      expiresAt: new Date(row.expiresAt),
      consumedAt: row.consumedAt === null ? null : new Date(row.consumedAt),
    }
  );
}

/** Consumes a state once: of two concurrent callbacks with one state, one gets 1 and the other 0. */
export async function claimLoginState(sql: Sql, stateHash: string, consumedAt: Date): Promise<number> {
  const rows = await sql.rows(
    'update sso_login_states set consumed_at = ? where state_hash = ? and consumed_at is null returning state_hash',
    [consumedAt, stateHash],
  );
  return rows.length;
}
