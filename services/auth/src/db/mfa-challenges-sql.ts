import type { Sql } from '@routinely/db';

/** A row of `mfa_challenges`: the second step of a login, with its attempt budget. */
export interface MfaChallengeRow {
  id: string;
  tenantId: string;
  userId: string;
  tokenHash: string;
  attempts: number;
  expiresAt: Date;
  consumedAt: Date | null;
}

type RawChallenge = Omit<MfaChallengeRow, 'expiresAt' | 'consumedAt'> & {
  expiresAt: string | Date;
  consumedAt: string | Date | null;
};

export async function insertChallenge(sql: Sql, row: MfaChallengeRow): Promise<void> {
  await sql.rows(
    `insert into mfa_challenges (id, tenant_id, user_id, token_hash, attempts, expires_at, consumed_at)
     values (?, ?, ?, ?, ?, ?, ?)`,
    [row.id, row.tenantId, row.userId, row.tokenHash, row.attempts, row.expiresAt, row.consumedAt],
  );
}

export async function findChallenge(sql: Sql, tokenHash: string): Promise<MfaChallengeRow | undefined> {
  const row = await sql.first<RawChallenge>(
    `select id, tenant_id as "tenantId", user_id as "userId", token_hash as "tokenHash", attempts,
     expires_at as "expiresAt", consumed_at as "consumedAt" from mfa_challenges where token_hash = ?`,
    [tokenHash],
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
  const rows = await sql.rows(
    'update mfa_challenges set attempts = ? where id = ? and consumed_at is null and attempts < ? returning id',
    [attempts, id, maxAttempts],
  );
  return rows.length;
}

/** Consumes a challenge once; answers how many rows changed (0: already consumed). */
export async function consumeChallenge(sql: Sql, id: string, consumedAt: Date): Promise<number> {
  const rows = await sql.rows(
    'update mfa_challenges set consumed_at = ? where id = ? and consumed_at is null returning id',
    [consumedAt, id],
  );
  return rows.length;
}
