import { changedEntries, column, insertRow, type Row, row, type Sql, setClause } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import { countRow } from './counts-sql.js';
import type { WebhookEndpointRow } from './entities.js';

/** The columns of an endpoint under their property names. */
const ENDPOINT = `id, tenant_id as "tenantId", user_id as "userId", name, url, description, enabled,
  max_attempts as "maxAttempts", fallback_to_email as "fallbackToEmail", secret_sealed as "secretSealed",
  secret_preview as "secretPreview", consecutive_failures as "consecutiveFailures",
  circuit_open_until as "circuitOpenUntil", events, created_at as "createdAt", updated_at as "updatedAt"`;

const endpointRow = row({
  id: column.uuid,
  tenantId: column.text,
  userId: column.text,
  name: column.text,
  url: column.text,
  description: column.text.nullable(),
  enabled: column.boolean,
  maxAttempts: column.integer,
  fallbackToEmail: column.boolean,
  secretSealed: column.text,
  secretPreview: column.text,
  consecutiveFailures: column.integer,
  circuitOpenUntil: column.timestamp.nullable(),
  events: column.textArray.nullable(),
  createdAt: column.timestamp,
  updatedAt: column.timestamp,
});

/** The owner's endpoints, oldest first. */
export async function ownerEndpoints(sql: Sql, owner: Owner): Promise<WebhookEndpointRow[]> {
  return sql.rows(
    endpointRow,
    `select ${ENDPOINT} from webhook_endpoints where tenant_id = ? and user_id = ? order by created_at, id`,
    [owner.tenantId, owner.userId],
  );
}

/** The owner's endpoint `id`; undefined when there is none (or it is someone else's). */
export async function ownerEndpoint(sql: Sql, owner: Owner, id: string): Promise<WebhookEndpointRow | undefined> {
  return sql.first(
    endpointRow,
    `select ${ENDPOINT} from webhook_endpoints where id = ? and tenant_id = ? and user_id = ?`,
    [id, owner.tenantId, owner.userId],
  );
}

/** Takes the owner's endpoint lock for the rest of the transaction and counts the owner's endpoints. */
export async function lockAndCountEndpoints(sql: Sql, owner: Owner): Promise<number> {
  await sql.advisoryLock(`delivery.endpoints:${owner.tenantId}/${owner.userId}`);
  const count = await sql.first(
    countRow,
    'select count(*)::int as n from webhook_endpoints where tenant_id = ? and user_id = ?',
    [owner.tenantId, owner.userId],
  );
  return count?.n ?? 0;
}

/** An endpoint's state after a failed try was counted. */
const endpointFailureCountRow = row({
  failures: column.integer,
  tenant_id: column.text,
  user_id: column.text,
  name: column.text,
});
export type EndpointFailureCount = Row<typeof endpointFailureCountRow>;

/**
 * Counts a failed try of an endpoint in one statement; at `threshold` failures the circuit opens for
 * `openMs`, doubled per further failure and capped at `maxOpenMs`. Undefined when the endpoint is gone.
 */
export async function countEndpointFailure(
  sql: Sql,
  endpointId: string,
  now: Date,
  p: { threshold: number; openMs: number; maxOpenMs: number },
): Promise<EndpointFailureCount | undefined> {
  return sql.first(
    endpointFailureCountRow,
    `update webhook_endpoints set consecutive_failures = consecutive_failures + 1,
       circuit_open_until = case when consecutive_failures + 1 >= ?
         then ?::timestamptz + least(?::float8 * power(2, consecutive_failures + 1 - ?), ?::float8) * interval '1 millisecond'
         else circuit_open_until end
     where id = ?
     returning consecutive_failures as failures, tenant_id, user_id, name`,
    [p.threshold, now, p.openMs, p.threshold, p.maxOpenMs, endpointId],
  );
}

/** A secret sealed in the unbound `v0` form (Migration20261123150000), with the id it is to be bound to. */
export const unboundSecretRow = row({
  id: column.uuid,
  /** The endpoint id: the associated data of its sealed secret. */
  owner: column.uuid,
  secret_sealed: column.text,
});
export type UnboundSecret = Row<typeof unboundSecretRow>;

/** Endpoints whose secret is still sealed in the unbound `v0` form. */
export function unboundEndpointSecrets(sql: Sql): Promise<UnboundSecret[]> {
  return sql.rows(
    unboundSecretRow,
    `select id, id as owner, secret_sealed from webhook_endpoints where secret_sealed like 'v0.%'`,
  );
}

/** Replaces an endpoint's sealed secret, unless it changed since it was read (`was`). */
export async function resealEndpointSecret(sql: Sql, id: string, sealed: string, was: string): Promise<void> {
  await sql.run('update webhook_endpoints set secret_sealed = ? where id = ? and secret_sealed = ?', [sealed, id, was]);
}

/** Writes a new endpoint (every column). */
export function insertEndpoint(sql: Sql, r: WebhookEndpointRow): Promise<void> {
  return insertRow(sql, 'webhook_endpoints', r, { events: 'text[]' });
}

/** The endpoint columns an owner's write may change (the worker's failure count only through a reset). */
export type EndpointChange = Partial<
  Pick<
    WebhookEndpointRow,
    | 'name'
    | 'url'
    | 'description'
    | 'enabled'
    | 'maxAttempts'
    | 'fallbackToEmail'
    | 'events'
    | 'secretSealed'
    | 'secretPreview'
    | 'consecutiveFailures'
    | 'circuitOpenUntil'
    | 'updatedAt'
  >
>;

/**
 * Writes the columns of `change` that differ from `row` as it was read (see `changed-columns.ts` of @routinely/db); returns the
 * endpoint as changed.
 */
export async function writeEndpointChange(
  sql: Sql,
  row: WebhookEndpointRow,
  change: EndpointChange,
): Promise<WebhookEndpointRow> {
  const entries = changedEntries(row, change);
  if (entries.length > 0) {
    const { set, bindings } = setClause(entries, { events: 'text[]' });
    await sql.run(`update webhook_endpoints set ${set} where id = ? and tenant_id = ?`, [
      ...bindings,
      row.id,
      row.tenantId,
    ]);
  }
  return { ...row, ...change };
}

/** Removes the endpoint `id` of the tenant. */
export async function deleteEndpointRow(sql: Sql, tenantId: string, id: string): Promise<void> {
  await sql.run('delete from webhook_endpoints where id = ? and tenant_id = ?', [id, tenantId]);
}
