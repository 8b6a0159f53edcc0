import type { Clock, Logger, Principal } from '@routinely/platform';
import { AppError } from '@routinely/platform';
import type { IdpEvent } from '../../adapters/provider-signals.js';
import { appErrorIn } from './circuit-breaker.js';
import { checkLogoutClaims } from './logout-claims.js';
import type { SsoParts } from './sso-login.js';

/** How long acted-on message ids are remembered: far past the 5-minute windows that bound replays anyway. */
const REMEMBER_SECONDS = 24 * 3600;

export type BackChannelResult = { ok: true } | { ok: false; reason: string };

/**
 * Signals from the provider that end sessions: back-channel logout tokens, front-channel logout, IdP
 * events. Every effect goes through SessionService.revoke, i.e. the shared revocation store, so the access
 * tokens of an ended session fail at once on every service.
 */
export class SsoSignals {
  constructor(
    private readonly parts: SsoParts,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async backChannelLogout(token: string): Promise<BackChannelResult> {
    const rp = this.parts.rp;
    if (!rp) throw new AppError('sso_unavailable', 'Single sign-on is not configured on this deployment');
    let payload: Awaited<ReturnType<typeof rp.verifyLogoutJwt>>;
    try {
      payload = await rp.verifyLogoutJwt(token);
    } catch (error) {
      const carried = appErrorIn(error);
      // Keys that cannot be fetched say nothing about the token: 503 lets the provider retry.
      if (carried?.code === 'sso_unavailable') throw carried;
      return { ok: false, reason: 'signature, iss, aud or exp invalid' };
    }
    const order = checkLogoutClaims(payload, this.clock.now().getTime());
    if (typeof order === 'string') return { ok: false, reason: order };
    if (await this.parts.ssoSessions.seen('logout_token', `${rp.issuer}|${order.jti}`)) {
      return { ok: false, reason: 'jti already used' };
    }
    if (order.sid) {
      const sessions = await this.parts.ssoSessions.liveByProviderSid(rp.issuer, order.sid, order.sub);
      await this.revokeGrouped(sessions, 'sso_backchannel_logout');
    } else if (order.sub) {
      await this.revokeUserOf(rp.issuer, order.sub, 'sso_backchannel_logout');
    }
    await this.parts.ssoSessions.remember('logout_token', `${rp.issuer}|${order.jti}`, REMEMBER_SECONDS);
    return { ok: true };
  }

  /** Ends the cookie's session, and the user's SSO sessions when `sub` names that user. */
  async frontChannelLogout(principal: Principal | null, sub: string): Promise<void> {
    if (!principal) return;
    const { tenantId, userId, sessionId } = principal;
    const ended = new Set([sessionId]);
    const rp = this.parts.rp;
    if (sub && rp) {
      const user = await this.parts.accounts.userOf(rp.issuer, sub);
      if (sub === userId || user?.id === userId) {
        for (const s of await this.parts.ssoSessions.liveOfUser(tenantId, userId)) ended.add(s.sessionId);
      }
    }
    await this.parts.sessions.revoke(tenantId, userId, [...ended], 'sso_frontchannel_logout');
  }

  /** A verified IdP event, at most once per id. Unknown types are acknowledged and ignored. */
  async idpEvent(event: IdpEvent): Promise<void> {
    const rp = this.parts.rp;
    if (!rp) return;
    if (await this.parts.ssoSessions.seen('idp_event', event.id)) return;
    const subject = event.data.sub;
    if (event.type === 'user.account.deleted') {
      const user = await this.parts.accounts.sever(rp.issuer, subject);
      if (user) {
        // Sessions the deleted identity opened end with it; password sessions of the account stay.
        const sso = await this.parts.ssoSessions.liveOfUser(user.tenantId, user.id);
        await this.revokeGrouped(sso, 'sso_account_deleted');
      }
    } else if (event.type === 'user.access.revoked') {
      await this.revokeUserOf(rp.issuer, subject, 'sso_access_revoked');
    } else {
      this.logger.info({ type: event.type }, 'ignored IdP event of an unknown type');
    }
    await this.parts.ssoSessions.remember('idp_event', event.id, REMEMBER_SECONDS);
  }

  private async revokeUserOf(issuer: string, subject: string, reason: string): Promise<void> {
    const user = await this.parts.accounts.userOf(issuer, subject);
    if (!user) return;
    const live = await this.parts.sessions.liveSessions(user.tenantId, user.id);
    await this.parts.sessions.revoke(user.tenantId, user.id, live, reason);
  }

  private async revokeGrouped(sessions: { sessionId: string; userId: string; tenantId: string }[], reason: string) {
    const byUser = new Map<string, { tenantId: string; userId: string; ids: string[] }>();
    for (const s of sessions) {
      const entry = byUser.get(s.userId) ?? { tenantId: s.tenantId, userId: s.userId, ids: [] };
      entry.ids.push(s.sessionId);
      byUser.set(s.userId, entry);
    }
    for (const { tenantId, userId, ids } of byUser.values())
      await this.parts.sessions.revoke(tenantId, userId, ids, reason);
  }
}
