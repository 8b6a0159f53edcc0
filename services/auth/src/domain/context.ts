import type { Clock, CookieCsrfGuard, TokenVerifier } from '@routinely/platform';
import type { AuthConfig } from '../config.js';
import type { AccountService } from './accounts.js';
import type { MfaService } from './mfa.js';
import type { SessionService } from './sessions.js';
import type { SsoAccounts } from './sso/sso-accounts.js';
import type { SsoLogin } from './sso/sso-login.js';
import type { SsoSessions } from './sso/sso-sessions.js';
import type { SsoSignals } from './sso/sso-signals.js';
import type { TenantPolicies } from './tenants.js';

/** What the route plugins need, built once in buildService. */
export interface AuthContext {
  config: AuthConfig;
  clock: Clock;
  accounts: AccountService;
  sessions: SessionService;
  mfa: MfaService;
  tenants: TenantPolicies;
  sso: SsoLogin;
  ssoSignals: SsoSignals;
  ssoAccounts: SsoAccounts;
  ssoSessions: SsoSessions;
  /** This service's own access-token check, for routes that read a cookie without requiring one. */
  verifyOwnToken: TokenVerifier;
  /** The platform's check of cookie-authenticated writes, for the one the refresh cookie authenticates. */
  cookieWrites: CookieCsrfGuard;
}
