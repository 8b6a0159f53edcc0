import type { Sql } from '@routinely/db';
import { AppError, type Clock, notFound, randomToken, sha256 } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import {
  claimInvite,
  findInviteByToken,
  insertInvite,
  listUsableInvites,
  revokeInviteRow,
  type TenantInviteRow,
} from '../db/tenant-invites-sql.js';
import { findTenant, insertTenant, type TenantRow, updateTenant } from '../db/tenants-sql.js';

export type { TenantInviteRow };

export const REGISTRATION_POLICIES = ['invite', 'domain', 'open'] as const;
export type RegistrationPolicy = (typeof REGISTRATION_POLICIES)[number];
export type InviteRole = 'user' | 'admin';

export interface TenantSettings {
  tenantId: string;
  registration: RegistrationPolicy;
  allowedEmailDomains: string[];
  updatedAt: Date;
}

/** Who is joining a tenant, and how (the policy applies to password and SSO sign-ups alike). */
export interface Applicant {
  tenantId: string;
  email: string;
  via: 'password' | 'sso';
  inviteToken?: string | undefined;
}

const registrationClosed = (detail: string) => new AppError('registration_closed', detail);

/**
 * Tenants' registration policies and invitations (contract "Joining a tenant"). `admit` runs inside the
 * transaction that inserts the user, under the tenant's advisory lock, so "first user" and "invitation used"
 * are decided exactly once.
 */
export class TenantPolicies {
  constructor(
    private readonly db: Sql,
    private readonly clock: Clock,
    private readonly defaultTenantId: string,
  ) {}

  /** The tenant's policy as stored; a tenant without a row (created before policies existed) gets the default. */
  async settings(tenantId: string, sql: Sql = this.db): Promise<TenantSettings> {
    const row = await findTenant(sql, tenantId);
    return row ? toSettings(row) : this.defaults(tenantId, this.clock.now());
  }

  async update(
    tenantId: string,
    patch: { registration?: RegistrationPolicy | undefined; allowedEmailDomains?: string[] | undefined },
  ): Promise<TenantSettings> {
    const now = this.clock.now();
    return this.db.transaction(async (sql) => {
      const stored = await findTenant(sql, tenantId);
      const row = stored ?? this.newRow(tenantId, now);
      if (patch.registration !== undefined) row.registration = patch.registration;
      if (patch.allowedEmailDomains !== undefined) {
        row.allowedEmailDomains = [...new Set(patch.allowedEmailDomains.map((d) => d.toLowerCase()))];
      }
      row.updatedAt = now;
      await (stored ? updateTenant(sql, row) : insertTenant(sql, row));
      return toSettings(row);
    });
  }

  /**
   * Decides whether `applicant` may join and with which role; throws 403 registration_closed otherwise.
   * The first user of an unused tenant id creates the tenant and becomes its admin.
   */
  async admitNewUser(sql: Sql, applicant: Applicant, first: boolean, userId: string): Promise<InviteRole> {
    const now = this.clock.now();
    if (first) {
      if (!(await findTenant(sql, applicant.tenantId))) await insertTenant(sql, this.newRow(applicant.tenantId, now));
      return 'admin';
    }
    if (applicant.inviteToken) return this.redeem(sql, applicant, userId, now);
    const settings = await this.settings(applicant.tenantId, sql);
    if (settings.registration === 'open') return 'user';
    if (settings.registration === 'domain') {
      const domain = applicant.email.slice(applicant.email.lastIndexOf('@') + 1).toLowerCase();
      if (settings.allowedEmailDomains.includes(domain)) return 'user';
      throw registrationClosed('This tenant admits only email addresses of its allowed domains');
    }
    throw registrationClosed('This tenant admits new users by invitation only (send invite_token)');
  }

  async createInvite(
    tenantId: string,
    createdBy: string,
    input: { email?: string | undefined; role: InviteRole; expiresInSeconds: number },
  ): Promise<{ invite: TenantInviteRow; token: string }> {
    const now = this.clock.now();
    const token = randomToken();
    const invite: TenantInviteRow = {
      id: uuidv7(),
      tenantId,
      tokenHash: sha256(token),
      email: input.email ? input.email.trim().toLowerCase() : null,
      role: input.role,
      createdBy,
      createdAt: now,
      expiresAt: new Date(now.getTime() + input.expiresInSeconds * 1000),
      usedAt: null,
      usedBy: null,
      revokedAt: null,
    };
    await insertInvite(this.db, invite);
    return { invite, token };
  }

  /** Invitations still usable (not used, revoked or expired), newest first. */
  async listInvites(tenantId: string): Promise<TenantInviteRow[]> {
    return listUsableInvites(this.db, tenantId, this.clock.now(), 500);
  }

  async revokeInvite(tenantId: string, inviteId: string): Promise<void> {
    const revoked = await revokeInviteRow(this.db, tenantId, inviteId, this.clock.now());
    if (revoked === 0) throw notFound('Invitation');
  }

  private async redeem(sql: Sql, applicant: Applicant, userId: string, now: Date): Promise<InviteRole> {
    const invite = await findInviteByToken(sql, applicant.tenantId, sha256(applicant.inviteToken ?? ''));
    const usable =
      invite &&
      !invite.usedAt &&
      !invite.revokedAt &&
      invite.expiresAt.getTime() > now.getTime() &&
      (!invite.email || invite.email === applicant.email.toLowerCase());
    if (!invite || !usable)
      throw registrationClosed('The invitation is unknown, used, revoked, expired or for another email');
    // The conditional update is the claim: of two sign-ups racing with one invitation, one wins.
    const claimed = await claimInvite(sql, invite.id, userId, now);
    if (claimed === 0) throw registrationClosed('The invitation has already been used');
    return invite.role === 'admin' ? 'admin' : 'user';
  }

  private defaults(tenantId: string, now: Date): TenantSettings {
    return {
      tenantId,
      registration: tenantId === this.defaultTenantId ? 'open' : 'invite',
      allowedEmailDomains: [],
      updatedAt: now,
    };
  }

  /** The row of a tenant written for the first time, with the default policy. */
  private newRow(tenantId: string, now: Date): TenantRow {
    return {
      id: tenantId,
      registration: this.defaults(tenantId, now).registration,
      allowedEmailDomains: [],
      createdAt: now,
      updatedAt: now,
    };
  }
}

function toSettings(row: TenantRow): TenantSettings {
  return {
    tenantId: row.id,
    registration: row.registration as RegistrationPolicy,
    allowedEmailDomains: row.allowedEmailDomains,
    updatedAt: row.updatedAt,
  };
}
