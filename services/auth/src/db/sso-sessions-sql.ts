import { column, type Row, row, type Sql } from '@routinely/db';

/** A row of `sso_sessions`: the provider side of a local session opened by SSO. */
export interface SsoSessionRow {
  sessionId: string;
  tenantId: string;
  userId: string;
  issuer: string;
  subject: string;
  providerSid: string | null;
  /** Sealed with the session id as associated data. */
  idToken: string | null;
  createdAt: Date;
}

/** Which local session, of whom. */
const ssoSessionOwnerRow = row({ sessionId: column.uuid, userId: column.uuid, tenantId: column.uuid });
export type SsoSessionOwner = Row<typeof ssoSessionOwnerRow>;

const idTokenRow = row({ subject: column.text, idToken: column.text.nullable() });

const OWNER = 'session_id as "sessionId", user_id as "userId", tenant_id as "tenantId"';

export async function insertSsoSession(sql: Sql, row: SsoSessionRow): Promise<void> {
  await sql.run(
    `insert into sso_sessions (session_id, tenant_id, user_id, issuer, subject, provider_sid, id_token, created_at)
     values (?, ?, ?, ?, ?, ?, ?, ?)`,
    [row.sessionId, row.tenantId, row.userId, row.issuer, row.subject, row.providerSid, row.idToken, row.createdAt],
  );
}

/** The SSO sessions a provider `sid` names (and `sub`, when given). */
export async function ssoSessionsByProviderSid(
  sql: Sql,
  issuer: string,
  providerSid: string,
  subject: string | undefined,
): Promise<SsoSessionOwner[]> {
  return subject
    ? sql.rows(
        ssoSessionOwnerRow,
        `select ${OWNER} from sso_sessions where issuer = ? and provider_sid = ? and subject = ?`,
        [issuer, providerSid, subject],
      )
    : sql.rows(ssoSessionOwnerRow, `select ${OWNER} from sso_sessions where issuer = ? and provider_sid = ?`, [
        issuer,
        providerSid,
      ]);
}

export async function ssoSessionsOfUser(sql: Sql, tenantId: string, userId: string): Promise<SsoSessionOwner[]> {
  return sql.rows(ssoSessionOwnerRow, `select ${OWNER} from sso_sessions where tenant_id = ? and user_id = ?`, [
    tenantId,
    userId,
  ]);
}

export async function findSsoSession(
  sql: Sql,
  sessionId: string,
): Promise<Pick<SsoSessionRow, 'subject' | 'idToken'> | undefined> {
  return sql.first(idTokenRow, 'select subject, id_token as "idToken" from sso_sessions where session_id = ?', [
    sessionId,
  ]);
}
