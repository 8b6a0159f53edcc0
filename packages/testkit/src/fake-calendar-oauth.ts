import { createHash, randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';

const token = (prefix: string) => `${prefix}.${randomBytes(18).toString('base64url')}`;

/** How a fake provider reaches a receiver (push notifications, Graph's handshake); tests may route it in process. */
export type Deliver = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
) => Promise<{ status: number; text: string }>;

export const fetchDeliver: Deliver = async (url, init) => {
  const response = await fetch(url, init);
  return { status: response.status, text: await response.text() };
};

interface PendingCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  scope: string;
}

/**
 * The OAuth 2.0 authorization-code side shared by the Google and Microsoft fakes: an authorize endpoint that
 * consents at once for the one scripted account (PKCE S256 required), a token endpoint (authorization_code with
 * code_verifier, refresh_token), bearer tokens with an expiry the test can cut short, and scriptable failures
 * (invalid_grant, 429/503 with Retry-After) of the protected API.
 */
export class FakeOAuthCore {
  readonly app: FastifyInstance;
  baseUrl = '';
  readonly clientId: string;
  readonly clientSecret: string;
  /** Access-token lifetime in seconds, as `expires_in` says. */
  accessTtlS = 3600;
  /** Whether a refresh answers a new refresh token too (Microsoft rotates them; Google does not). */
  rotateRefreshTokens = false;
  private readonly codes = new Map<string, PendingCode>();
  private readonly accessTokens = new Map<string, { expiresAt: number; refresh: string; scope: string }>();
  /** Live refresh tokens and the scope each was granted. */
  private readonly refreshTokens = new Map<string, string>();
  /** What the consent grants of what was asked: null grants everything asked (a test may withhold a scope). */
  grantScope: ((asked: string) => string) | null = null;
  private invalidGrant = false;
  /** The user says no on the consent screen (error=access_denied back to the client). */
  denyConsent = false;
  private throttles: { status: number; retryAfter: string | null; body: unknown }[] = [];
  /** While set, every API call answers this (a provider rate-limiting for a while); `lift()` ends it. */
  private limited: { status: number; retryAfter: string | null; body: unknown } | null = null;
  private holds: { match: RegExp; left: number; waiting: number; release: () => void; gate: Promise<void> }[] = [];
  /** Every token endpoint call by grant type, and every API call refused for its token. */
  readonly counts = { authorization_code: 0, refresh_token: 0, unauthorized: 0, throttled: 0 };

  constructor(options: { clientId?: string; clientSecret?: string } = {}) {
    this.clientId = options.clientId ?? 'fake-client';
    this.clientSecret = options.clientSecret ?? 'fake-client-secret';
    this.app = Fastify();
    // A provider that stalls: held requests get no answer until the test releases them.
    this.app.addHook('onRequest', async (request) => {
      const hold = this.holds.find((h) => h.left > 0 && h.match.test(request.url));
      if (!hold) return;
      hold.left -= 1;
      hold.waiting += 1;
      await hold.gate;
    });
    // A provider that applies a request but whose answer never arrives (the caller crashed or the network broke).
    this.app.addHook('onSend', async (request, _reply, payload) => {
      const lose = this.losses.find((l) => l.left > 0 && l.match.test(request.url) && l.method === request.method);
      if (!lose) return payload;
      lose.left -= 1;
      request.raw.socket.destroy();
      return payload;
    });
    this.app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    );
  }

  async listen(host = '127.0.0.1', port = 0): Promise<void> {
    await this.app.listen({ host, port });
    const address = this.app.server.address();
    if (!address || typeof address === 'string') throw new Error('fake provider has no TCP address');
    this.baseUrl = `http://${host}:${address.port}`;
  }

  close(): Promise<void> {
    for (const hold of this.holds) hold.release();
    return this.app.close();
  }

  /**
   * The next `count` requests whose path matches get no answer until `release()` (a provider that stalls in the
   * middle of a sync). `waiting` counts the ones held so far.
   */
  holdNext(match: RegExp, count = 1): { readonly waiting: number; release(): void } {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const hold = { match, left: count, waiting: 0, release, gate };
    this.holds.push(hold);
    return {
      get waiting() {
        return hold.waiting;
      },
      release: () => {
        hold.left = 0;
        hold.release();
      },
    };
  }

  private losses: { method: string; match: RegExp; left: number }[] = [];

  /** The next `count` requests of `method` whose path matches are applied, but their answer is lost. */
  loseAnswerNext(method: string, match: RegExp, count = 1): void {
    this.losses.push({ method, match, left: count });
  }

  /** Every access token issued so far stops working (the next API call gets 401, then a refresh succeeds). */
  expireAccessTokens(): void {
    for (const entry of this.accessTokens.values()) entry.expiresAt = 0;
  }

  /** Refreshes fail with invalid_grant from now on (consent withdrawn, grant expired). */
  failRefreshWithInvalidGrant(on = true): void {
    this.invalidGrant = on;
  }

  /** The next `count` API calls answer `status` (429 or 503) with this Retry-After. */
  throttleNext(
    count: number,
    status = 429,
    retryAfter: string | null = '0',
    body: unknown = { error: 'rate limited' },
  ): void {
    for (let i = 0; i < count; i++) this.throttles.push({ status, retryAfter, body });
  }

  /** Every API call answers `status` (with this Retry-After, none when null) until `lift()`. */
  rateLimit(
    status = 429,
    retryAfter: string | null = '30',
    body: unknown = { error: 'rate limited' },
  ): { lift(): void } {
    this.limited = { status, retryAfter, body };
    return {
      lift: () => {
        this.limited = null;
      },
    };
  }

  /** A refresh token (and every access token it minted) stops working: the provider's revoke. */
  revoke(value: string): boolean {
    let known = this.refreshTokens.delete(value);
    for (const [access, entry] of this.accessTokens) {
      if (access === value || entry.refresh === value) {
        this.accessTokens.delete(access);
        this.refreshTokens.delete(entry.refresh);
        known = true;
      }
    }
    return known;
  }

  get liveRefreshTokens(): number {
    return this.refreshTokens.size;
  }

  /** GET authorize: consent is given at once; the browser is sent back with `code` and `state`. */
  authorize(query: Record<string, string | undefined>, reply: FastifyReply, requireOffline: () => boolean) {
    const redirectUri = query.redirect_uri;
    if (query.client_id !== this.clientId || !redirectUri) {
      return reply.status(400).send({ error: 'invalid_client' });
    }
    const back = new URL(redirectUri);
    if (query.state) back.searchParams.set('state', query.state);
    if (query.response_type !== 'code' || query.code_challenge_method !== 'S256' || !query.code_challenge) {
      back.searchParams.set('error', 'invalid_request');
      return reply.redirect(back.toString(), 302);
    }
    if (this.denyConsent) {
      back.searchParams.set('error', 'access_denied');
      return reply.redirect(back.toString(), 302);
    }
    if (!requireOffline()) {
      back.searchParams.set('error', 'invalid_scope');
      return reply.redirect(back.toString(), 302);
    }
    const code = token('code');
    this.codes.set(code, {
      clientId: this.clientId,
      redirectUri,
      challenge: query.code_challenge,
      scope: this.grantScope ? this.grantScope(query.scope ?? '') : (query.scope ?? ''),
    });
    back.searchParams.set('code', code);
    return reply.redirect(back.toString(), 302);
  }

  /** POST token: authorization_code (PKCE checked) or refresh_token. */
  token(form: Record<string, string | undefined>, reply: FastifyReply) {
    if (form.client_id !== this.clientId || form.client_secret !== this.clientSecret) {
      return reply.status(401).send({ error: 'invalid_client' });
    }
    if (form.grant_type === 'authorization_code') {
      this.counts.authorization_code += 1;
      const pending = form.code ? this.codes.get(form.code) : undefined;
      if (form.code) this.codes.delete(form.code);
      const verifier = form.code_verifier ?? '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (!pending || pending.redirectUri !== form.redirect_uri || pending.challenge !== challenge) {
        return reply.status(400).send({ error: 'invalid_grant', error_description: 'Bad code, redirect or verifier' });
      }
      const refresh = token('refresh');
      this.refreshTokens.set(refresh, pending.scope);
      return this.issue(reply, refresh, true);
    }
    if (form.grant_type === 'refresh_token') {
      this.counts.refresh_token += 1;
      const refresh = form.refresh_token ?? '';
      if (this.invalidGrant || !this.refreshTokens.has(refresh)) {
        return reply
          .status(400)
          .send({ error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
      }
      if (!this.rotateRefreshTokens) return this.issue(reply, refresh, false);
      const scope = this.refreshTokens.get(refresh) ?? '';
      this.refreshTokens.delete(refresh);
      const next = token('refresh');
      this.refreshTokens.set(next, scope);
      return this.issue(reply, next, true);
    }
    return reply.status(400).send({ error: 'unsupported_grant_type' });
  }

  private issue(reply: FastifyReply, refresh: string, withRefresh: boolean) {
    const access = token('access');
    const scope = this.refreshTokens.get(refresh) ?? '';
    this.accessTokens.set(access, { expiresAt: Date.now() + this.accessTtlS * 1000, refresh, scope });
    return reply.send({
      access_token: access,
      token_type: 'Bearer',
      expires_in: this.accessTtlS,
      scope,
      ...(withRefresh ? { refresh_token: refresh } : {}),
    });
  }

  /**
   * Guards a protected API call: a scripted throttle answers first, then the bearer token must be live.
   * Answers true when the handler may go on (else the reply is sent).
   */
  guard(
    request: FastifyRequest,
    reply: FastifyReply,
    unauthorized: () => unknown,
    needs?: { scope: string; forbidden: () => unknown },
  ): boolean {
    const throttle = this.limited ?? this.throttles.shift();
    if (throttle) {
      this.counts.throttled += 1;
      if (throttle.retryAfter !== null) reply.header('retry-after', throttle.retryAfter);
      reply.status(throttle.status).send(throttle.body);
      return false;
    }
    const header = request.headers.authorization ?? '';
    const entry = this.accessTokens.get(header.replace(/^Bearer /, ''));
    if (!entry || entry.expiresAt <= Date.now()) {
      this.counts.unauthorized += 1;
      reply.status(401).header('www-authenticate', 'Bearer error="invalid_token"').send(unauthorized());
      return false;
    }
    if (needs && !entry.scope.split(' ').includes(needs.scope)) {
      reply.status(403).send(needs.forbidden());
      return false;
    }
    return true;
  }
}
