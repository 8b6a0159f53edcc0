import type { Sql } from '@routinely/db';
import type { Clock, SecretBox } from '@routinely/platform';
import { sha256 } from '@routinely/platform';
import { liveSessionsAmong } from '../../db/sessions-sql.js';
import { deleteSeenMessagesExpiredBefore, rememberMessage, seenMessage } from '../../db/sso-seen-messages-sql.js';
import {
  findSsoSession,
  insertSsoSession,
  type SsoSessionOwner,
  ssoSessionsByProviderSid,
  ssoSessionsOfUser,
} from '../../db/sso-sessions-sql.js';

export interface SsoSessionInput {
  issuer: string;
  subject: string;
  providerSid: string | undefined;
  idToken: string | undefined;
}

/** The provider side of local sessions, and the ids of provider messages already acted on. */
export class SsoSessions {
  constructor(
    private readonly db: Sql,
    private readonly box: SecretBox,
    private readonly clock: Clock,
  ) {}

  /** Writes the SSO side of a session being opened (called inside SessionService.open's transaction). */
  async record(
    sql: Sql,
    user: { id: string; tenantId: string },
    sessionId: string,
    input: SsoSessionInput,
  ): Promise<void> {
    await insertSsoSession(sql, {
      sessionId,
      tenantId: user.tenantId,
      userId: user.id,
      issuer: input.issuer,
      subject: input.subject,
      providerSid: input.providerSid ?? null,
      idToken: input.idToken ? this.box.seal(input.idToken, sessionId) : null,
      createdAt: this.clock.now(),
    });
  }

  /** The live local sessions a back-channel logout names: by provider `sid` (and `sub` when both are given). */
  async liveByProviderSid(issuer: string, providerSid: string, subject: string | undefined) {
    return this.alive(await ssoSessionsByProviderSid(this.db, issuer, providerSid, subject));
  }

  /** Live SSO sessions of a user (front-channel logout naming the user). */
  async liveOfUser(tenantId: string, userId: string) {
    return this.alive(await ssoSessionsOfUser(this.db, tenantId, userId));
  }

  /** The SSO side of one session, with its ID token opened. */
  async ofSession(sessionId: string): Promise<{ idToken: string | undefined; subject: string } | undefined> {
    const row = await findSsoSession(this.db, sessionId);
    if (!row) return undefined;
    return { idToken: row.idToken ? this.box.open(row.idToken, sessionId) : undefined, subject: row.subject };
  }

  /** Whether a provider message id (logout-token jti, IdP event id) was already acted on. */
  async seen(kind: string, id: string): Promise<boolean> {
    return seenMessage(this.db, sha256(`${kind}:${id}`));
  }

  /** Remembers a message id for `keepSeconds` (well past the message's own acceptance window). */
  async remember(kind: string, id: string, keepSeconds: number): Promise<void> {
    const now = this.clock.now();
    await deleteSeenMessagesExpiredBefore(this.db, now);
    await rememberMessage(this.db, sha256(`${kind}:${id}`), kind, new Date(now.getTime() + keepSeconds * 1000));
  }

  private async alive(rows: SsoSessionOwner[]): Promise<SsoSessionOwner[]> {
    if (rows.length === 0) return [];
    const live = await liveSessionsAmong(
      this.db,
      rows.map((r) => r.sessionId),
      this.clock.now(),
    );
    return live.map((s) => ({ sessionId: s.id, userId: s.userId, tenantId: s.tenantId }));
  }
}
