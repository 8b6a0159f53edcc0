import type { Sql } from '@routinely/db';
import { authEvents, type OutboxRelay } from '@routinely/events';
import { AppError, type Clock } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import type { ProviderClaims } from '../../adapters/relying-party.js';
import {
  countIdentitiesOfUser,
  deleteIdentity,
  findIdentity,
  findIdentityOfUser,
  insertIdentity,
} from '../../db/sso-identities-sql.js';
import { findUser, findUserByEmail, isUniqueViolation, type UserRow, updateUser } from '../../db/users-sql.js';
import { accountDisabled, normaliseEmail, registerUser } from '../accounts.js';
import { enqueueUserEvent, type ProfileCache } from '../profile.js';
import type { TenantPolicies } from '../tenants.js';
import { invalidSsoToken } from './sso-errors.js';

/**
 * Who may join a tenant (its registration policy, domain/tenants.ts). Runs inside the transaction that
 * creates the user, never for a known identity or a link to an existing account; throws 403
 * registration_closed to refuse, and answers the new user's role.
 */
export type TenantAdmission = Pick<TenantPolicies, 'admitNewUser'>;

const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);

/**
 * Users signing in through the provider, keyed by (issuer, sub). A local account with the same email is
 * linked only when the provider vouches for the address (`email_verified`), so an unverified provider
 * account can never take over a local one.
 */
export class SsoAccounts {
  constructor(
    private readonly db: Sql,
    private readonly clock: Clock,
    private readonly cache: ProfileCache,
    private readonly relay: Pick<OutboxRelay, 'kick'>,
    private readonly admission: TenantAdmission,
  ) {}

  async signIn(issuer: string, claims: ProviderClaims, tenantId: string): Promise<UserRow> {
    const known = await this.userOf(issuer, claims.sub);
    if (known) return active(known);
    const email = str(claims.email);
    if (!email) throw invalidSsoToken('The provider did not share an email address (scope "email")');
    const existing = await findUserByEmail(this.db, normaliseEmail(email));
    try {
      const user = existing ? await this.link(existing, issuer, claims) : await this.create(issuer, claims, tenantId);
      this.relay.kick();
      return user;
    } catch (error) {
      // A concurrent first sign-in of the same identity won the race: use its row.
      if (isUniqueViolation(error)) {
        const raced = await this.userOf(issuer, claims.sub);
        if (raced) return active(raced);
        throw new AppError('conflict', 'This account is already linked to another identity at the provider');
      }
      throw error;
    }
  }

  /** The user an identity belongs to, if any. */
  async userOf(issuer: string, subject: string): Promise<UserRow | undefined> {
    const link = await findIdentity(this.db, issuer, subject);
    if (!link) return undefined;
    return findUser(this.db, link.tenantId, link.userId);
  }

  /** The caller's subject at the provider, if the account is linked. */
  async subjectOf(user: UserRow, issuer: string): Promise<string | undefined> {
    const link = await findIdentityOfUser(this.db, user.tenantId, user.id, issuer);
    return link?.subject;
  }

  /** Links an account created at the provider by this service (registration through the admin API). */
  async linkCreated(user: UserRow, issuer: string, subject: string): Promise<void> {
    await this.db.transaction((sql) =>
      insertIdentity(sql, {
        id: uuidv7(),
        tenantId: user.tenantId,
        userId: user.id,
        issuer,
        subject,
        createdAt: this.clock.now(),
      }),
    );
  }

  /** user.account.deleted: the identity is gone, the account stays as a local-only one. */
  async sever(issuer: string, subject: string): Promise<UserRow | undefined> {
    const user = await this.userOf(issuer, subject);
    if (!user) return undefined;
    const now = this.clock.now();
    await this.db.transaction(async (sql) => {
      await deleteIdentity(sql, issuer, subject);
      // Only the identity at this issuer is cut; a user linked elsewhere too keeps those.
      const others = await countIdentitiesOfUser(sql, user.tenantId, user.id);
      if (others === 0) {
        await updateUser(sql, user.tenantId, user.id, { authMethod: 'local', updatedAt: now });
        user.authMethod = 'local';
      }
      user.updatedAt = now;
      await enqueueUserEvent(sql, authEvents.userUpdated, user, now);
    });
    this.cache.invalidate(user.id);
    this.relay.kick();
    return user;
  }

  private async link(existing: UserRow, issuer: string, claims: ProviderClaims): Promise<UserRow> {
    if (claims.email_verified !== true) {
      throw new AppError(
        'email_taken',
        'An account with this email already exists; verify the email address at the identity provider to link it',
      );
    }
    if (!existing.isActive) throw accountDisabled();
    const now = this.clock.now();
    const linked = await this.db.transaction(async (sql) => {
      await insertIdentity(sql, {
        id: uuidv7(),
        tenantId: existing.tenantId,
        userId: existing.id,
        issuer,
        subject: claims.sub,
        createdAt: now,
      });
      const row = await updateUser(sql, existing.tenantId, existing.id, {
        authMethod: 'sso',
        isVerified: true,
        updatedAt: now,
      });
      if (!row) throw new Error('User not found');
      await enqueueUserEvent(sql, authEvents.userUpdated, row, now);
      return row;
    });
    this.cache.invalidate(existing.id);
    return linked;
  }

  private async create(issuer: string, claims: ProviderClaims, tenantId: string): Promise<UserRow> {
    const email = normaliseEmail(String(claims.email));
    const now = this.clock.now();
    return this.db.transaction(async (sql) => {
      const user = await registerUser(sql, {
        tenantId,
        email,
        name: str(claims.name),
        displayName: str(claims.name),
        firstName: str(claims.given_name),
        lastName: str(claims.family_name),
        phone: null,
        timezone: null,
        locale: null,
        authMethod: 'sso',
        passwordHash: null,
        isVerified: claims.email_verified === true,
        extra: {},
        now,
        applicant: { via: 'sso' },
        admission: this.admission,
      });
      await insertIdentity(sql, {
        id: uuidv7(),
        tenantId,
        userId: user.id,
        issuer,
        subject: claims.sub,
        createdAt: now,
      });
      return user;
    });
  }
}

function active(user: UserRow): UserRow {
  if (!user.isActive) throw accountDisabled();
  return user;
}
