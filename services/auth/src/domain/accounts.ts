import type { Sql } from '@routinely/db';
import { authEvents, type OutboxRelay } from '@routinely/events';
import { AppError, type Clock, fieldError } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import {
  countUsersOfTenant,
  emailRegistered,
  findUser,
  findUserByEmail,
  insertUser,
  isUniqueViolation,
  lockTenantRegistrations,
  type UserRow,
  updateUser,
  writePasswordHash,
} from '../db/users-sql.js';
import type { LoginThrottle } from './login-throttle.js';
import { type PasswordHasher, passwordProblem } from './passwords.js';
import { enqueueUserEvent, type ProfileCache } from './profile.js';
import type { TenantPolicies } from './tenants.js';

export type { UserRow };

type TenantAdmission = Pick<TenantPolicies, 'admitNewUser'>;

export interface RegistrationInput {
  email: string;
  password: string;
  tenantId: string;
  name?: string | undefined;
  firstName?: string | undefined;
  lastName?: string | undefined;
  displayName?: string | undefined;
  phone?: string | undefined;
  timezone?: string | undefined;
  locale?: string | undefined;
  extra: Record<string, unknown>;
  inviteToken?: string | undefined;
}

export interface ProfilePatch {
  name?: string | null | undefined;
  displayName?: string | null | undefined;
  firstName?: string | null | undefined;
  lastName?: string | null | undefined;
  timezone?: string | null | undefined;
  locale?: string | null | undefined;
  avatarUrl?: string | null | undefined;
}

export interface NewUser {
  tenantId: string;
  email: string;
  name: string | null;
  displayName: string | null;
  firstName: string | null;
  lastName: string | null;
  phone: string | null;
  timezone: string | null;
  locale: string | null;
  authMethod: 'local' | 'sso';
  passwordHash: string | null;
  isVerified: boolean;
  extra: Record<string, unknown>;
  now: Date;
  /** How the user is joining (the invitation they bring, if any), for the tenant's registration policy. */
  applicant: { via: 'password' | 'sso'; inviteToken?: string | undefined };
  admission: TenantAdmission;
}

/**
 * Inserts a user with its auth.user.registered event, inside the caller's transaction. Registrations of one
 * tenant are serialised so exactly one first user becomes its admin (password and SSO sign-ups alike).
 */
export async function registerUser(sql: Sql, input: NewUser): Promise<UserRow> {
  await lockTenantRegistrations(sql, input.tenantId);
  const first = (await countUsersOfTenant(sql, input.tenantId)) === 0;
  const { now, applicant, admission, ...fields } = input;
  const id = uuidv7();
  const role = await admission.admitNewUser(
    sql,
    { tenantId: input.tenantId, email: input.email, ...applicant },
    first,
    id,
  );
  const created: UserRow = {
    id,
    ...fields,
    avatarUrl: null,
    isActive: true,
    roles: [role],
    mfaEnabled: false,
    mfaSecret: null,
    mfaPendingSecret: null,
    mfaLastStep: null,
    createdAt: now,
    updatedAt: now,
  };
  await insertUser(sql, created);
  await enqueueUserEvent(sql, authEvents.userRegistered, created, now);
  return created;
}

/** The schema judged the password alone; with the account known, its email counts too. */
function refuseEmailAsPassword(user: UserRow, password: string, field: string): void {
  const problem = passwordProblem(password, user.email);
  if (problem) throw fieldError(['body', field], problem, 'value_error');
}

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

/** One answer for an unknown email and a wrong password: same status, body and (argon2) work. */
const invalidCredentials = () => new AppError('invalid_credentials', 'Incorrect email or password');
const emailTaken = () => new AppError('email_taken', 'This email is already registered');
export const accountDisabled = () => new AppError('account_disabled', 'This account is disabled');
/** The signed-in user's row is gone between reading and writing it (findOneOrFail's failure before). */
const vanished = () => new Error('User not found');

export class AccountService {
  constructor(
    private readonly db: Sql,
    private readonly clock: Clock,
    private readonly hasher: PasswordHasher,
    private readonly throttle: LoginThrottle,
    private readonly cache: ProfileCache,
    private readonly relay: Pick<OutboxRelay, 'kick'>,
    private readonly admission: TenantAdmission,
  ) {}

  async register(input: RegistrationInput): Promise<UserRow> {
    const email = normaliseEmail(input.email);
    if (await emailRegistered(this.db, email)) throw emailTaken();
    const passwordHash = await this.hasher.hash(input.password);
    const now = this.clock.now();
    try {
      const user = await this.db.transaction((sql) =>
        registerUser(sql, {
          tenantId: input.tenantId,
          email,
          name: input.name ?? null,
          displayName: input.displayName ?? null,
          firstName: input.firstName ?? null,
          lastName: input.lastName ?? null,
          phone: input.phone ?? null,
          timezone: input.timezone ?? null,
          locale: input.locale ?? null,
          authMethod: 'local',
          passwordHash,
          isVerified: false,
          extra: input.extra,
          now,
          applicant: { via: 'password', inviteToken: input.inviteToken },
          admission: this.admission,
        }),
      );
      this.relay.kick();
      return user;
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw emailTaken();
      }
      throw error;
    }
  }

  /** Checks email and password behind the login throttle. MFA is the caller's next step. */
  async authenticate(emailInput: string, password: string, ip: string): Promise<UserRow> {
    const email = normaliseEmail(emailInput);
    await this.throttle.gate(email, ip);
    const user = await findUserByEmail(this.db, email);
    const ok = await this.hasher.verify(user?.passwordHash, password);
    if (!user || !ok) {
      await this.throttle.recordFailure(email, ip);
      throw invalidCredentials();
    }
    // With MFA on, the pair's failures are cleared only when the code step succeeds too; else a known
    // password would reset the count of wrong codes at every new challenge.
    if (!user.mfaEnabled) await this.throttle.recordSuccess(email, ip);
    // Only after a correct password, so the disabled state leaks to nobody without it.
    if (!user.isActive) throw accountDisabled();
    return user;
  }

  /** The caller's own row (cached briefly for GET /auth/me). A token for a vanished user is no longer valid. */
  async current(tenantId: string, userId: string, options: { cached?: boolean } = {}): Promise<UserRow> {
    if (options.cached) {
      const hit = this.cache.get(userId);
      if (hit && hit.tenantId === tenantId) return hit;
    }
    const user = await findUser(this.db, tenantId, userId);
    if (!user) throw new AppError('invalid_token', 'The account of this token no longer exists');
    if (!user.isActive) throw accountDisabled();
    this.cache.set(user);
    return user;
  }

  async updateProfile(user: UserRow, patch: ProfilePatch): Promise<UserRow> {
    const now = this.clock.now();
    const updated = await this.db.transaction(async (sql) => {
      const row = await updateUser(sql, user.tenantId, user.id, { ...patch, updatedAt: now });
      if (!row) throw vanished();
      await enqueueUserEvent(sql, authEvents.userUpdated, row, now);
      return row;
    });
    this.cache.invalidate(user.id);
    this.relay.kick();
    return updated;
  }

  /** Replaces the user's roles (select-role); the token's permissions follow at the next refresh. */
  async setRoles(user: UserRow, roles: string[]): Promise<UserRow> {
    const now = this.clock.now();
    const updated = await this.db.transaction(async (sql) => {
      const row = await updateUser(sql, user.tenantId, user.id, { roles, updatedAt: now });
      if (!row) throw vanished();
      await enqueueUserEvent(sql, authEvents.userUpdated, row, now);
      return row;
    });
    this.cache.invalidate(user.id);
    this.relay.kick();
    return updated;
  }

  /** Changes (or first sets) the local password; with one already set, the current one must be given and right. */
  async setLocalPassword(
    user: UserRow,
    newPassword: string,
    currentPassword: string | undefined,
    ip: string,
  ): Promise<void> {
    if (user.passwordHash) {
      if (currentPassword === undefined)
        throw fieldError(['body', 'current_password'], 'is required when a local password exists', 'missing');
      await this.checkPassword(user, currentPassword, ip);
    }
    refuseEmailAsPassword(user, newPassword, 'new_password');
    await this.writePassword(user, newPassword);
  }

  /** First local password of an account that has none (an SSO account); 409 when one exists. */
  async setupPassword(user: UserRow, password: string): Promise<void> {
    if (user.passwordHash) throw new AppError('password_already_set', 'A local password is already set');
    refuseEmailAsPassword(user, password, 'password');
    await this.writePassword(user, password, true);
  }

  /** Re-authentication inside a session (password change, MFA disable), throttled like logins. */
  async checkPassword(user: UserRow, password: string, ip: string): Promise<void> {
    await this.throttle.gate(user.email, ip);
    if (!(await this.hasher.verify(user.passwordHash, password))) {
      await this.throttle.recordFailure(user.email, ip);
      throw new AppError('invalid_credentials', 'Incorrect password');
    }
  }

  private async writePassword(user: UserRow, password: string, onlyIfUnset = false): Promise<void> {
    const passwordHash = await this.hasher.hash(password);
    const changed = await writePasswordHash(
      this.db,
      user.tenantId,
      user.id,
      passwordHash,
      this.clock.now(),
      onlyIfUnset,
    );
    if (changed === 0) throw new AppError('password_already_set', 'A local password is already set');
    this.cache.invalidate(user.id);
  }
}
