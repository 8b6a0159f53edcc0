import { column, type Row, row, type Sql } from '@routinely/db';

/** A row of `mfa_challenges`: the second step of a login, with its attempt budget. */
const mfaChallengeRow = row({
  id: column.uuid,
  tenantId: column.uuid,
  userId: column.uuid,
  tokenHash: column.text,
  attempts: column.integer,
  expiresAt: column.timestamp,
  consumedAt: column.timestamp.nullable(),
});
export type MfaChallengeRow = Row<typeof mfaChallengeRow>;

export async function insertChallenge(sql: Sql, row: MfaChallengeRow): Promise<void> {
  await sql.run(
    `insert into mfa_challenges (id, tenant_id, user_id, token_hash, attempts, expires_at, consumed_at)
     values (?, ?, ?, ?, ?, ?, ?)`,
    [row.id, row.tenantId, row.userId, row.tokenHash, row.attempts, row.expiresAt, row.consumedAt],
  );
}

export async function findChallenge(sql: Sql, tokenHash: string): Promise<MfaChallengeRow | undefined> {
  return sql.first(
    mfaChallengeRow,
    `select id, tenant_id as "tenantId", user_id as "userId", token_hash as "tokenHash", attempts,
     expires_at as "expiresAt", consumed_at as "consumedAt" from mfa_challenges where token_hash = ?`,
    [tokenHash],
  );
}

/**
 * Sets the attempt count to `attempts` while the challenge is unconsumed and below `maxAttempts`: counted
 * before the check, so parallel guesses cannot exceed the budget. Answers how many rows changed.
 */
export async function countChallengeAttempt(
  sql: Sql,
  id: string,
  attempts: number,
  maxAttempts: number,
): Promise<number> {
  return sql.run(
    'update mfa_challenges set attempts = ? where id = ? and consumed_at is null and attempts < ? returning id',
    [attempts, id, maxAttempts],
  );
}

/** Consumes a challenge once; answers how many rows changed (0: already consumed). */
export async function consumeChallenge(sql: Sql, id: string, consumedAt: Date): Promise<number> {
  return sql.run('update mfa_challenges set consumed_at = ? where id = ? and consumed_at is null returning id', [
    consumedAt,
    id,
  ]);
}
