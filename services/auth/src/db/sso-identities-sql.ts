import type { Sql } from '@routinely/db';

/** A row of `sso_identities`: a user's identity at a provider, keyed by (issuer, subject). */
export interface SsoIdentityRow {
  id: string;
  tenantId: string;
  userId: string;
  issuer: string;
  subject: string;
  createdAt: Date;
}

type RawIdentity = Omit<SsoIdentityRow, 'createdAt'> & { createdAt: string | Date };

const SELECTED = `id, tenant_id as "tenantId", user_id as "userId", issuer, subject, created_at as "createdAt"`;

/** The driver hands timestamptz over as text; rows here carry Dates. */
const parsed = (raw: RawIdentity): SsoIdentityRow => ({ ...raw, createdAt: new Date(raw.createdAt) });

export async function findIdentity(sql: Sql, issuer: string, subject: string): Promise<SsoIdentityRow | undefined> {
  const row = await sql.first<RawIdentity>(`select ${SELECTED} from sso_identities where issuer = ? and subject = ?`, [
    issuer,
    subject,
  ]);
  return row && parsed(row);
}

export async function findIdentityOfUser(
  sql: Sql,
  tenantId: string,
  userId: string,
  issuer: string,
): Promise<SsoIdentityRow | undefined> {
  const row = await sql.first<RawIdentity>(
    `select ${SELECTED} from sso_identities where user_id = ? and tenant_id = ? and issuer = ?`,
    [userId, tenantId, issuer],
  );
  return row && parsed(row);
}

export async function insertIdentity(sql: Sql, row: SsoIdentityRow): Promise<void> {
  await sql.rows(
    'insert into sso_identities (id, tenant_id, user_id, issuer, subject, created_at) values (?, ?, ?, ?, ?, ?)',
    [row.id, row.tenantId, row.userId, row.issuer, row.subject, row.createdAt],
  );
}

export async function deleteIdentity(sql: Sql, issuer: string, subject: string): Promise<void> {
  await sql.rows('delete from sso_identities where issuer = ? and subject = ?', [issuer, subject]);
}

export async function countIdentitiesOfUser(sql: Sql, tenantId: string, userId: string): Promise<number> {
  const row = await sql.first<{ count: number }>(
    'select count(*)::int as count from sso_identities where user_id = ? and tenant_id = ?',
    [userId, tenantId],
  );
  return row?.count ?? 0;
}
