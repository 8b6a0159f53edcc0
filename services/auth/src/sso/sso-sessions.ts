import type { EntityManager, Orm } from '@routinely/db';
import type { Clock, SecretBox } from '@routinely/platform';
import { sha256 } from '@routinely/platform';
import { Session } from '../db/entities.js';
import { SsoSeenMessage, SsoSession } from '../db/sso-entities.js';

export interface SsoSessionInput {
  issuer: string;
  subject: string;
  providerSid: string | undefined;
  idToken: string | undefined;
}

/** The provider side of local sessions, and the ids of provider messages already acted on. */
export class SsoSessions {
  constructor(
    private readonly orm: Orm,
    private readonly box: SecretBox,
    private readonly clock: Clock,
  ) {}

  /** Writes the SSO side of a session being opened (called inside SessionService.open's transaction). */
  record(em: EntityManager, user: { id: string; tenantId: string }, sessionId: string, input: SsoSessionInput): void {
    em.create(SsoSession, {
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
    const rows = await this.orm.em
      .fork()
      .find(
        SsoSession,
        { issuer, providerSid, ...(subject ? { subject } : {}) },
        { fields: ['sessionId', 'userId', 'tenantId'] },
      );
    return this.alive(rows);
  }

  /** Live SSO sessions of a user (front-channel logout naming the user). */
  async liveOfUser(tenantId: string, userId: string) {
    const rows = await this.orm.em
      .fork()
      .find(SsoSession, { tenantId, userId }, { fields: ['sessionId', 'userId', 'tenantId'] });
    return this.alive(rows);
  }

  /** The SSO side of one session, with its ID token opened. */
  async ofSession(sessionId: string): Promise<{ idToken: string | undefined; subject: string } | undefined> {
    const row = await this.orm.em.fork().findOne(SsoSession, { sessionId });
    if (!row) return undefined;
    return { idToken: row.idToken ? this.box.open(row.idToken, sessionId) : undefined, subject: row.subject };
  }

  /** Whether a provider message id (logout-token jti, IdP event id) was already acted on. */
  async seen(kind: string, id: string): Promise<boolean> {
    return (await this.orm.em.fork().count(SsoSeenMessage, { key: sha256(`${kind}:${id}`) })) > 0;
  }

  /** Remembers a message id for `keepSeconds` (well past the message's own acceptance window). */
  async remember(kind: string, id: string, keepSeconds: number): Promise<void> {
    const now = this.clock.now();
    const em = this.orm.em.fork();
    await em.nativeDelete(SsoSeenMessage, { expiresAt: { $lt: now } });
    await em
      .getConnection()
      .execute('insert into sso_seen_messages (key, kind, expires_at) values (?, ?, ?) on conflict (key) do nothing', [
        sha256(`${kind}:${id}`),
        kind,
        new Date(now.getTime() + keepSeconds * 1000),
      ]);
  }

  private async alive(rows: { sessionId: string; userId: string; tenantId: string }[]) {
    if (rows.length === 0) return [];
    const live = await this.orm.em
      .fork()
      .find(
        Session,
        { id: { $in: rows.map((r) => r.sessionId) }, revokedAt: null, expiresAt: { $gt: this.clock.now() } },
        { fields: ['id', 'userId', 'tenantId'] },
      );
    return live.map((s) => ({ sessionId: s.id, userId: s.userId, tenantId: s.tenantId }));
  }
}
