import type { EntityManager, Orm } from '@routinely/db';
import { AppError, type Clock, notFound, randomToken, sha256 } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import { Tenant, TenantInvite, type TenantInviteRow, type TenantRow } from '../db/tenant-entities.js';

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
    private readonly orm: Orm,
    private readonly clock: Clock,
    private readonly defaultTenantId: string,
  ) {}

  /** The tenant's policy as stored; a tenant without a row (created before policies existed) gets the default. */
  async settings(tenantId: string, em: EntityManager = this.orm.em.fork()): Promise<TenantSettings> {
    const row = await em.findOne(Tenant, { id: tenantId });
    return row ? toSettings(row) : this.defaults(tenantId, this.clock.now());
  }

  async update(
    tenantId: string,
    patch: { registration?: RegistrationPolicy | undefined; allowedEmailDomains?: string[] | undefined },
  ): Promise<TenantSettings> {
    const now = this.clock.now();
    return this.orm.em.fork().transactional(async (tx) => {
      const row = (await tx.findOne(Tenant, { id: tenantId })) ?? this.createRow(tx, tenantId, now);
      if (patch.registration !== undefined) row.registration = patch.registration;
      if (patch.allowedEmailDomains !== undefined) {
        row.allowedEmailDomains = [...new Set(patch.allowedEmailDomains.map((d) => d.toLowerCase()))];
      }
      row.updatedAt = now;
      return toSettings(row);
    });
  }

  /**
   * Decides whether `applicant` may join and with which role; throws 403 registration_closed otherwise.
   * The first user of an unused tenant id creates the tenant and becomes its admin.
   */
  async admitNewUser(tx: EntityManager, applicant: Applicant, first: boolean, userId: string): Promise<InviteRole> {
    const now = this.clock.now();
    if (first) {
      if (!(await tx.findOne(Tenant, { id: applicant.tenantId }))) this.createRow(tx, applicant.tenantId, now);
      return 'admin';
    }
    if (applicant.inviteToken) return this.redeem(tx, applicant, userId, now);
    const settings = await this.settings(applicant.tenantId, tx);
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
    const em = this.orm.em.fork();
    const invite = em.create(TenantInvite, {
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
    });
    await em.flush();
    return { invite, token };
  }

  /** Invitations still usable (not used, revoked or expired), newest first. */
  async listInvites(tenantId: string): Promise<TenantInviteRow[]> {
    return this.orm.em
      .fork()
      .find(
        TenantInvite,
        { tenantId, usedAt: null, revokedAt: null, expiresAt: { $gt: this.clock.now() } },
        { orderBy: { createdAt: 'desc' }, limit: 500 },
      );
  }

  async revokeInvite(tenantId: string, inviteId: string): Promise<void> {
    const revoked = await this.orm.em
      .fork()
      .nativeUpdate(
        TenantInvite,
        { id: inviteId, tenantId, usedAt: null, revokedAt: null },
        { revokedAt: this.clock.now() },
      );
    if (revoked === 0) throw notFound('Invitation');
  }

  private async redeem(tx: EntityManager, applicant: Applicant, userId: string, now: Date): Promise<InviteRole> {
    const invite = await tx.findOne(TenantInvite, {
      tokenHash: sha256(applicant.inviteToken ?? ''),
      tenantId: applicant.tenantId,
    });
    const usable =
      invite &&
      !invite.usedAt &&
      !invite.revokedAt &&
      invite.expiresAt.getTime() > now.getTime() &&
      (!invite.email || invite.email === applicant.email.toLowerCase());
    if (!invite || !usable)
      throw registrationClosed('The invitation is unknown, used, revoked, expired or for another email');
    // The conditional update is the claim: of two sign-ups racing with one invitation, one wins.
    const claimed = await tx.nativeUpdate(
      TenantInvite,
      { id: invite.id, usedAt: null },
      { usedAt: now, usedBy: userId },
    );
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

  private createRow(tx: EntityManager, tenantId: string, now: Date): TenantRow {
    const defaults = this.defaults(tenantId, now);
    return tx.create(Tenant, {
      id: tenantId,
      registration: defaults.registration,
      allowedEmailDomains: [],
      createdAt: now,
      updatedAt: now,
    });
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
