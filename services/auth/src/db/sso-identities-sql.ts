import { column, type Row, row, type Sql } from '@routinely/db';

/** A row of `sso_identities`: a user's identity at a provider, keyed by (issuer, subject). */
const ssoIdentityRow = row({
  id: column.uuid,
  tenantId: column.uuid,
  userId: column.uuid,
  issuer: column.text,
  subject: column.text,
  createdAt: column.timestamp,
});
export type SsoIdentityRow = Row<typeof ssoIdentityRow>;

const SELECTED = `id, tenant_id as "tenantId", user_id as "userId", issuer, subject, created_at as "createdAt"`;

const countRow = row({ count: column.integer });

export async function findIdentity(sql: Sql, issuer: string, subject: string): Promise<SsoIdentityRow | undefined> {
  return sql.first(ssoIdentityRow, `select ${SELECTED} from sso_identities where issuer = ? and subject = ?`, [
    issuer,
    subject,
  ]);
}

export async function findIdentityOfUser(
  sql: Sql,
  tenantId: string,
  userId: string,
  issuer: string,
): Promise<SsoIdentityRow | undefined> {
  return sql.first(
    ssoIdentityRow,
    `select ${SELECTED} from sso_identities where user_id = ? and tenant_id = ? and issuer = ?`,
    [userId, tenantId, issuer],
  );
}

export async function insertIdentity(sql: Sql, row: SsoIdentityRow): Promise<void> {
  await sql.run(
    'insert into sso_identities (id, tenant_id, user_id, issuer, subject, created_at) values (?, ?, ?, ?, ?, ?)',
    [row.id, row.tenantId, row.userId, row.issuer, row.subject, row.createdAt],
  );
}

export async function deleteIdentity(sql: Sql, issuer: string, subject: string): Promise<void> {
  await sql.run('delete from sso_identities where issuer = ? and subject = ?', [issuer, subject]);
}

export async function countIdentitiesOfUser(sql: Sql, tenantId: string, userId: string): Promise<number> {
  const row = await sql.first(
    countRow,
    'select count(*)::int as count from sso_identities where user_id = ? and tenant_id = ?',
    [userId, tenantId],
  );
  return row?.count ?? 0;
}
