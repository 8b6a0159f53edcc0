import { column, type Row, row, type Sql } from '@routinely/db';

/** A row of `sso_login_states`: one started browser login (single-use state, nonce, sealed PKCE verifier). */
const ssoLoginStateRow = row({
  stateHash: column.text,
  browserHash: column.text,
  nonce: column.text,
  codeVerifier: column.text,
  returnUrl: column.text,
  tenantId: column.uuid,
  expiresAt: column.timestamp,
  consumedAt: column.timestamp.nullable(),
});
export type SsoLoginStateRow = Row<typeof ssoLoginStateRow>;

export async function deleteLoginStatesExpiredBefore(sql: Sql, before: Date): Promise<void> {
  await sql.run('delete from sso_login_states where expires_at < ?', [before]);
}

export async function insertLoginState(sql: Sql, row: SsoLoginStateRow): Promise<void> {
  await sql.run(
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
  return sql.first(
    ssoLoginStateRow,
    `select state_hash as "stateHash", browser_hash as "browserHash", nonce, code_verifier as "codeVerifier",
     return_url as "returnUrl", tenant_id as "tenantId", expires_at as "expiresAt", consumed_at as "consumedAt"
     from sso_login_states where state_hash = ?`,
    [stateHash],
  );
}

/** Consumes a state once: of two concurrent callbacks with one state, one gets 1 and the other 0. */
export async function claimLoginState(sql: Sql, stateHash: string, consumedAt: Date): Promise<number> {
  return sql.run(
    'update sso_login_states set consumed_at = ? where state_hash = ? and consumed_at is null returning state_hash',
    [consumedAt, stateHash],
  );
}
