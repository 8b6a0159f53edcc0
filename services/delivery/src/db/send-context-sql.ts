import { column, type Row, row, type Sql } from '@routinely/db';

/** An endpoint as a send needs it. */
const endpointForSendRow = row({
  id: column.uuid,
  url: column.text,
  enabled: column.boolean,
  secret_sealed: column.text,
  fallback_to_email: column.boolean,
});
export type EndpointForSend = Row<typeof endpointForSendRow>;

const contactRow = row({ tenant_id: column.text, user_id: column.text, email: column.text });

/** The endpoints a claim's webhook deliveries go to (URL, state, sealed secret), by id. */
/** What the send context reads of a claimed delivery (structural: claim-sql.ts imports this module). */
interface Claimed {
  endpoint_id: string | null;
  channel: string;
  tenant_id: string;
  user_id: string;
}

export async function endpointsForSend(sql: Sql, claimed: readonly Claimed[]): Promise<Map<string, EndpointForSend>> {
  const ids = [...new Set(claimed.map((d) => d.endpoint_id).filter((id): id is string => !!id))];
  const map = new Map<string, EndpointForSend>();
  if (ids.length === 0) return map;
  const rows = await sql.rows(
    endpointForSendRow,
    'select id, url, enabled, secret_sealed, fallback_to_email from webhook_endpoints where id = any(?::uuid[])',
    [ids],
  );
  for (const row of rows) map.set(row.id, row);
  return map;
}

/** The addresses a claim's email deliveries go to, keyed `tenant/user`. */
export async function contactEmailsOf(sql: Sql, claimed: readonly Claimed[]): Promise<Map<string, string>> {
  const owners = claimed.filter((d) => d.channel === 'email');
  const map = new Map<string, string>();
  if (owners.length === 0) return map;
  const rows = await sql.rows(
    contactRow,
    `select tenant_id, user_id, email from user_contacts
     where (tenant_id, user_id) in (select * from unnest(?::text[], ?::text[]))`,
    [owners.map((d) => d.tenant_id), owners.map((d) => d.user_id)],
  );
  for (const row of rows) map.set(`${row.tenant_id}/${row.user_id}`, row.email);
  return map;
}
