import { column, type Row, row, type Sql } from '@routinely/db';
import { z } from 'zod';

/** A row of `signing_keys` (system-wide, no tenant); the private key is sealed with the kid as associated data. */
const signingKeyRow = row({
  kid: column.text,
  publicJwk: column.json(z.record(z.string(), z.unknown())),
  privateKey: column.text,
  createdAt: column.timestamp,
  retiredAt: column.timestamp.nullable(),
});
export type SigningKeyRow = Row<typeof signingKeyRow>;

const countRow = row({ count: column.integer });

/** Serialises first start across replicas until the transaction ends: only one of them generates the key. */
export async function lockSigningKeys(sql: Sql): Promise<void> {
  await sql.advisoryLock('auth:signing-keys');
}

export async function countActiveSigningKeys(sql: Sql): Promise<number> {
  const row = await sql.first(countRow, 'select count(*)::int as count from signing_keys where retired_at is null');
  return row?.count ?? 0;
}

export async function insertSigningKey(sql: Sql, row: SigningKeyRow): Promise<void> {
  await sql.run(
    'insert into signing_keys (kid, public_jwk, private_key, created_at, retired_at) values (?, ?::jsonb, ?, ?, ?)',
    [row.kid, JSON.stringify(row.publicJwk), row.privateKey, row.createdAt, row.retiredAt],
  );
}

/** The keys not retired, newest first. */
export async function activeSigningKeys(sql: Sql): Promise<SigningKeyRow[]> {
  return sql.rows(
    signingKeyRow,
    `select kid, public_jwk as "publicJwk", private_key as "privateKey", created_at as "createdAt",
     retired_at as "retiredAt" from signing_keys where retired_at is null order by created_at desc`,
  );
}
