import { timingSafeEqual } from 'node:crypto';
import type { Sql } from '@routinely/db';
import type { Clock } from '@routinely/platform';
import { randomToken, type SecretBox, sha256 } from '@routinely/platform';
import * as oidc from 'openid-client';
import {
  claimLoginState,
  deleteLoginStatesExpiredBefore,
  findLoginState,
  insertLoginState,
} from '../../db/sso-login-states-sql.js';

/** State and nonce are single-use and live 10 minutes (contract). */
export const LOGIN_STATE_TTL_SECONDS = 600;

export interface StartedLogin {
  state: string;
  nonce: string;
  codeChallenge: string;
  /** Goes into the flow cookie of the browser that started the login. */
  browserToken: string;
}

export type ConsumedLogin =
  | { ok: true; nonce: string; codeVerifier: string; returnUrl: string; tenantId: string }
  | { ok: false; returnUrl: string | undefined };

/**
 * Server-side records of started browser logins. The state names the record; the record also holds the
 * nonce, the PKCE verifier (sealed) and a hash of a cookie set on the starting browser, so a callback URL
 * carried to another browser (login CSRF) is refused as a bad state.
 */
export class LoginStates {
  constructor(
    private readonly db: Sql,
    private readonly box: SecretBox,
    private readonly clock: Clock,
  ) {}

  async start(input: { returnUrl: string; tenantId: string }): Promise<StartedLogin> {
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const browserToken = randomToken();
    const now = this.clock.now();
    const stateHash = sha256(state);
    // Expired records are useless; sweeping them here keeps the table at about ten minutes of logins.
    await deleteLoginStatesExpiredBefore(this.db, new Date(now.getTime() - 3600_000));
    await insertLoginState(this.db, {
      stateHash,
      browserHash: sha256(browserToken),
      nonce,
      codeVerifier: this.box.seal(codeVerifier, stateHash),
      returnUrl: input.returnUrl,
      tenantId: input.tenantId,
      expiresAt: new Date(now.getTime() + LOGIN_STATE_TTL_SECONDS * 1000),
      consumedAt: null,
    });
    return { state, nonce, codeChallenge: await oidc.calculatePKCECodeChallenge(codeVerifier), browserToken };
  }

  /** Claims a state once. Unknown, expired, replayed or carried to another browser: not ok. */
  async consume(state: string, browserToken: string | undefined): Promise<ConsumedLogin> {
    const stateHash = sha256(state);
    const row = await findLoginState(this.db, stateHash);
    if (!row) return { ok: false, returnUrl: undefined };
    const refused = { ok: false as const, returnUrl: row.returnUrl };
    if (!browserToken || !sameHash(row.browserHash, sha256(browserToken))) return refused;
    const now = this.clock.now();
    if (row.consumedAt || row.expiresAt.getTime() <= now.getTime()) return refused;
    // The conditional update is the claim: of two concurrent callbacks with one state, one wins.
    const claimed = await claimLoginState(this.db, stateHash, now);
    if (claimed === 0) return refused;
    return {
      ok: true,
      nonce: row.nonce,
      codeVerifier: this.box.open(row.codeVerifier, stateHash),
      returnUrl: row.returnUrl,
      tenantId: row.tenantId,
    };
  }
}

const sameHash = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
