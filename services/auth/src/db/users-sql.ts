import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { column, type Row, row, type Sql } from '@routinely/db';
import { z } from 'zod';

/** A row of `users`, with the column names of the entity (db/entities.ts). */
const userRow = row({
  id: column.uuid,
  tenantId: column.uuid,
  email: column.text,
  name: column.text.nullable(),
  displayName: column.text.nullable(),
  firstName: column.text.nullable(),
  lastName: column.text.nullable(),
  phone: column.text.nullable(),
  avatarUrl: column.text.nullable(),
  timezone: column.text.nullable(),
  locale: column.text.nullable(),
  authMethod: column.text,
  passwordHash: column.text.nullable(),
  isActive: column.boolean,
  isVerified: column.boolean,
  roles: column.json(z.array(z.string())),
  extra: column.json(z.record(z.string(), z.unknown())),
  mfaEnabled: column.boolean,
  mfaSecret: column.text.nullable(),
  mfaPendingSecret: column.text.nullable(),
  mfaLastStep: column.bigint.nullable(),
  createdAt: column.timestamp,
  updatedAt: column.timestamp,
});
export type UserRow = Row<typeof userRow>;

const countRow = row({ count: column.integer });
/** Only whether a row is there: nobody reads its columns. */
const existsRow = row({});

/** Property -> column, in the order of the insert below. */
const COLUMN_OF = {
  id: 'id',
  tenantId: 'tenant_id',
  email: 'email',
  name: 'name',
  displayName: 'display_name',
  firstName: 'first_name',
  lastName: 'last_name',
  phone: 'phone',
  avatarUrl: 'avatar_url',
  timezone: 'timezone',
  locale: 'locale',
  authMethod: 'auth_method',
  passwordHash: 'password_hash',
  isActive: 'is_active',
  isVerified: 'is_verified',
  roles: 'roles',
  extra: 'extra',
  mfaEnabled: 'mfa_enabled',
  mfaSecret: 'mfa_secret',
  mfaPendingSecret: 'mfa_pending_secret',
  mfaLastStep: 'mfa_last_step',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
} as const satisfies Record<keyof UserRow, string>;

const SELECTED = Object.entries(COLUMN_OF)
  .map(([property, column]) => `${column} as "${property}"`)
  .join(', ');

/** jsonb columns bind as JSON text (an array would otherwise bind as a PostgreSQL array). */
const bound = (property: keyof UserRow, value: unknown) =>
  property === 'roles' || property === 'extra' ? JSON.stringify(value) : value;
const placeholder = (property: keyof UserRow) => (property === 'roles' || property === 'extra' ? '?::jsonb' : '?');

/** A unique constraint refused a write (a raw statement's pg error, or an ORM flush's exception). */
export function isUniqueViolation(error: unknown): boolean {
  if (error instanceof UniqueConstraintViolationException) return true;
  return typeof error === 'object' && error !== null && 'code' in error && error.code === '23505';
}

/** Serialises registrations of one tenant until the transaction ends, so exactly one first user becomes its admin. */
export async function lockTenantRegistrations(sql: Sql, tenantId: string): Promise<void> {
  await sql.advisoryLock(`auth:tenant:${tenantId}`);
}

export async function countUsersOfTenant(sql: Sql, tenantId: string): Promise<number> {
  const row = await sql.first(countRow, 'select count(*)::int as count from users where tenant_id = ?', [tenantId]);
  return row?.count ?? 0;
}

export async function emailRegistered(sql: Sql, email: string): Promise<boolean> {
  return (await sql.first(existsRow, 'select 1 from users where email = ?', [email])) !== undefined;
}

export async function insertUser(sql: Sql, row: UserRow): Promise<void> {
  const properties = Object.keys(COLUMN_OF) as (keyof UserRow)[];
  await sql.run(
    `insert into users (${properties.map((p) => COLUMN_OF[p]).join(', ')})
     values (${properties.map(placeholder).join(', ')})`,
    properties.map((p) => bound(p, row[p])),
  );
}

export async function findUserByEmail(sql: Sql, email: string): Promise<UserRow | undefined> {
  return sql.first(userRow, `select ${SELECTED} from users where email = ?`, [email]);
}

export async function findUser(sql: Sql, tenantId: string, userId: string): Promise<UserRow | undefined> {
  return sql.first(userRow, `select ${SELECTED} from users where id = ? and tenant_id = ?`, [userId, tenantId]);
}

/** What a plain update may change; the MFA columns have their own conditional writes below. */
export type UserChanges = Partial<
  Pick<
    UserRow,
    | 'name'
    | 'displayName'
    | 'firstName'
    | 'lastName'
    | 'timezone'
    | 'locale'
    | 'avatarUrl'
    | 'roles'
    | 'authMethod'
    | 'isVerified'
    | 'updatedAt'
  >
>;

function setClause(changes: Record<string, unknown>): { set: string; params: unknown[] } {
  const entries = Object.entries(changes).filter(([, value]) => value !== undefined) as [keyof UserRow, unknown][];
  return {
    set: entries.map(([property]) => `${COLUMN_OF[property]} = ${placeholder(property)}`).join(', '),
    params: entries.map(([property, value]) => bound(property, value)),
  };
}

/** Writes `changes` to one user and answers the row as it now is (undefined if there is no such user). */
export async function updateUser(
  sql: Sql,
  tenantId: string,
  userId: string,
  changes: UserChanges,
): Promise<UserRow | undefined> {
  const { set, params } = setClause(changes);
  return sql.first(userRow, `update users set ${set} where id = ? and tenant_id = ? returning ${SELECTED}`, [
    ...params,
    userId,
    tenantId,
  ]);
}

/** Sets the password hash; `onlyIfUnset` writes only where none is set. Answers how many rows changed. */
export async function writePasswordHash(
  sql: Sql,
  tenantId: string,
  userId: string,
  passwordHash: string,
  updatedAt: Date,
  onlyIfUnset: boolean,
): Promise<number> {
  return sql.run(
    `update users set password_hash = ?, updated_at = ? where id = ? and tenant_id = ?
     ${onlyIfUnset ? 'and password_hash is null' : ''} returning id`,
    [passwordHash, updatedAt, userId, tenantId],
  );
}

/** Stores a pending TOTP seed of a user whose MFA is off. Answers how many rows changed (0: MFA is on). */
export async function writePendingMfaSecret(
  sql: Sql,
  tenantId: string,
  userId: string,
  sealedSecret: string,
  updatedAt: Date,
): Promise<number> {
  return sql.run(
    `update users set mfa_pending_secret = ?, updated_at = ?
     where id = ? and tenant_id = ? and mfa_enabled = false returning id`,
    [sealedSecret, updatedAt, userId, tenantId],
  );
}

/** Turns MFA on with the pending seed `pendingSecret`, if it is still the pending one and MFA is still off. */
export async function confirmMfaSecret(
  sql: Sql,
  tenantId: string,
  userId: string,
  pendingSecret: string,
  step: number,
  updatedAt: Date,
): Promise<number> {
  return sql.run(
    `update users set mfa_enabled = true, mfa_secret = ?, mfa_pending_secret = null, mfa_last_step = ?, updated_at = ?
     where id = ? and tenant_id = ? and mfa_enabled = false and mfa_pending_secret = ? returning id`,
    [pendingSecret, step, updatedAt, userId, tenantId, pendingSecret],
  );
}

/** Moves the accepted TOTP step forward to `step`; 0 when that step (or a later one) was already used. */
export async function acceptTotpStep(sql: Sql, tenantId: string, userId: string, step: number): Promise<number> {
  return sql.run(
    `update users set mfa_last_step = ?
     where id = ? and tenant_id = ? and (mfa_last_step is null or mfa_last_step < ?) returning id`,
    [step, userId, tenantId, step],
  );
}

export async function clearMfa(sql: Sql, tenantId: string, userId: string, updatedAt: Date): Promise<void> {
  await sql.run(
    `update users set mfa_enabled = false, mfa_secret = null, mfa_pending_secret = null, mfa_last_step = null,
     updated_at = ? where id = ? and tenant_id = ?`,
    [updatedAt, userId, tenantId],
  );
}
