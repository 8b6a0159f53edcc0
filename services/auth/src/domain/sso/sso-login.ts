import { AppError, type Logger } from '@routinely/platform';
import type { KeycloakAdmin } from '../../adapters/keycloak-admin.js';
import type { ProviderClaims, RelyingParty } from '../../adapters/relying-party.js';
import type { AuthConfig } from '../../config.js';
import type { UserRow } from '../../db/users-sql.js';
import type { SessionService, TokenResponse } from '../sessions.js';
import { type BreakerState, type CircuitBreaker, ssoUnavailable } from './circuit-breaker.js';
import type { LoginStates } from './login-states.js';
import type { SsoAccounts } from './sso-accounts.js';
import type { SsoSessions } from './sso-sessions.js';

export interface SsoParts {
  config: AuthConfig;
  breaker: CircuitBreaker;
  /** Undefined when SSO_ISSUER_URL is not set. */
  rp: RelyingParty | undefined;
  /** Undefined without SSO_ADMIN_API_URL (or without a client secret to reach it). */
  admin: KeycloakAdmin | undefined;
  accounts: SsoAccounts;
  states: LoginStates;
  ssoSessions: SsoSessions;
  sessions: SessionService;
}

export interface SsoStatus {
  sso_available: boolean;
  sso_configured: boolean;
  circuit_breaker: { state: BreakerState; failures: number };
  auth_methods: string[];
  active_auth_method: string;
}

export type BrowserLoginResult =
  | { ok: true; tokens: TokenResponse; returnUrl: string }
  | { ok: false; returnUrl: string | undefined; error: string };

/** The sign-in side of SSO: starting logins, the browser's return, provider tokens presented by clients. */
export class SsoLogin {
  constructor(
    private readonly parts: SsoParts,
    private readonly logger: Logger,
  ) {}

  status(): SsoStatus {
    const configured = this.parts.rp !== undefined;
    const breaker = this.parts.breaker.snapshot();
    const available = configured && breaker.state !== 'open';
    return {
      sso_available: available,
      sso_configured: configured,
      circuit_breaker: breaker,
      auth_methods: configured ? ['sso', 'local'] : ['local'],
      active_auth_method: available ? 'sso' : 'local',
    };
  }

  /**
   * Reads the provider's discovery document in the background at start, so the first login does not pay
   * for it and an unreachable provider shows in the log (and the breaker) at once. Never blocks start-up:
   * password login does not depend on the provider.
   */
  warmUp(): void {
    this.parts.rp?.config().catch((error: unknown) => {
      this.logger.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'identity provider discovery failed',
      );
    });
  }

  /** The relying party, or 503 sso_unavailable when SSO is not configured. */
  configured(): RelyingParty {
    if (!this.parts.rp) throw ssoUnavailable('Single sign-on is not configured on this deployment');
    return this.parts.rp;
  }

  /** For routes that call the provider: 503 at once while the breaker is open. */
  available(): RelyingParty {
    const rp = this.configured();
    if (this.parts.breaker.state === 'open') throw ssoUnavailable();
    return rp;
  }

  admin(): KeycloakAdmin {
    this.available();
    if (!this.parts.admin) throw ssoUnavailable('The identity provider admin API is not configured');
    return this.parts.admin;
  }

  async start(input: { returnUrl: string; tenantId: string; register: boolean }) {
    const rp = this.available();
    const started = await this.parts.states.start(input);
    const location = await rp.authorizationUrl({
      state: started.state,
      nonce: started.nonce,
      codeChallenge: started.codeChallenge,
      ...(input.register ? { prompt: 'create' } : {}),
    });
    return { location: location.toString(), browserToken: started.browserToken };
  }

  /** The browser's return from the provider: state claimed once, code exchanged, user found or created. */
  async finishBrowserLogin(callbackUrl: URL, browserToken: string | undefined): Promise<BrowserLoginResult> {
    const rp = this.available();
    const state = callbackUrl.searchParams.get('state');
    if (!state) return { ok: false, returnUrl: undefined, error: 'invalid_state' };
    const claimed = await this.parts.states.consume(state, browserToken);
    if (!claimed.ok) return { ok: false, returnUrl: claimed.returnUrl, error: 'invalid_state' };
    const providerError = callbackUrl.searchParams.get('error');
    // The provider's own refusal (access_denied, login_required, ...) is passed on as a code, never as text.
    if (providerError) return { ok: false, returnUrl: claimed.returnUrl, error: safeCode(providerError) };
    try {
      const { claims, idToken } = await rp.exchangeCode(callbackUrl, {
        state,
        nonce: claimed.nonce,
        codeVerifier: claimed.codeVerifier,
      });
      const tokens = await this.open(rp, claims, idToken, claimed.tenantId);
      return { ok: true, tokens, returnUrl: claimed.returnUrl };
    } catch (error) {
      if (error instanceof AppError && error.code !== 'internal_error') {
        return { ok: false, returnUrl: claimed.returnUrl, error: error.code };
      }
      throw error;
    }
  }

  /** POST /auth/sso/callback and POST /auth/login {sso_token}: a provider ID token or access token. */
  async tokenLogin(token: string, tenantId: string): Promise<TokenResponse> {
    const rp = this.available();
    const { claims, idToken } = await rp.claimsOfToken(token);
    return this.open(rp, claims, idToken, tenantId);
  }

  /** POST /auth/sso/validate: the token's claims, no session. */
  async validate(token: string) {
    const rp = this.available();
    try {
      const { claims } = await rp.claimsOfToken(token);
      return {
        valid: true as const,
        sub: claims.sub,
        email: typeof claims.email === 'string' ? claims.email : null,
        exp: typeof claims.exp === 'number' ? claims.exp : null,
        claims,
      };
    } catch (error) {
      if (error instanceof AppError && error.code === 'invalid_sso_token') {
        return { valid: false as const, error: error.message };
      }
      throw error;
    }
  }

  /**
   * Registration with the admin API configured: the account is also created at the provider and linked.
   * Returns undefined without an admin API; false when the provider failed (the local account stands).
   */
  async createAtProvider(user: UserRow, password: string): Promise<boolean | undefined> {
    const { admin, rp } = this.parts;
    if (!admin || !rp) return undefined;
    if (this.parts.breaker.state === 'open') return false;
    try {
      const subject = await admin.createUser({
        email: user.email,
        password,
        firstName: user.firstName ?? undefined,
        lastName: user.lastName ?? undefined,
      });
      await this.parts.accounts.linkCreated(user, rp.issuer, subject);
      return true;
    } catch (error) {
      this.logger.warn(
        { err: error instanceof AppError ? error.message : String(error) },
        'provider registration failed',
      );
      return false;
    }
  }

  /** The provider's logout URL for a session (id_token_hint when the session came from SSO). */
  async logoutUrl(sessionId: string | undefined): Promise<string | undefined> {
    const rp = this.parts.rp;
    if (!rp || !sessionId || this.parts.breaker.state === 'open') return undefined;
    const side = await this.parts.ssoSessions.ofSession(sessionId);
    if (!side) return undefined;
    try {
      const url = await rp.endSessionUrl(side.idToken, `${this.parts.config.PUBLIC_BASE_URL}/`);
      return url?.toString();
    } catch {
      // The local session is already over; a provider that cannot be reached must not block the logout.
      return undefined;
    }
  }

  private async open(rp: RelyingParty, claims: ProviderClaims, idToken: string | undefined, tenantId: string) {
    if (typeof claims.sub !== 'string' || !claims.sub)
      throw new AppError('invalid_sso_token', 'The token has no subject');
    const user: UserRow = await this.parts.accounts.signIn(rp.issuer, claims, tenantId);
    return this.parts.sessions.open(user, (sql, sessionId) =>
      this.parts.ssoSessions.record(sql, user, sessionId, {
        issuer: rp.issuer,
        subject: claims.sub,
        providerSid: typeof claims.sid === 'string' ? claims.sid : undefined,
        idToken,
      }),
    );
  }
}

const safeCode = (value: string) => (/^[a-z_]{1,64}$/.test(value) ? value : 'provider_error');
