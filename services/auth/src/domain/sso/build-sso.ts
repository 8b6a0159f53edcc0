import type { Orm } from '@routinely/db';
import type { OutboxRelay } from '@routinely/events';
import type { Clock, Logger, SecretBox } from '@routinely/platform';
import { KeycloakAdmin } from '../../adapters/keycloak-admin.js';
import { RelyingParty } from '../../adapters/relying-party.js';
import type { AuthConfig } from '../../config.js';
import type { ProfileCache } from '../profile.js';
import type { SessionService } from '../sessions.js';
import { CircuitBreaker } from './circuit-breaker.js';
import { LoginStates } from './login-states.js';
import { SsoAccounts, type TenantAdmission } from './sso-accounts.js';
import { SsoLogin } from './sso-login.js';
import { SsoSessions } from './sso-sessions.js';
import { SsoSignals } from './sso-signals.js';

export interface SsoDeps {
  config: AuthConfig;
  clock: Clock;
  orm: Orm;
  box: SecretBox;
  cache: ProfileCache;
  relay: Pick<OutboxRelay, 'kick'>;
  sessions: SessionService;
  logger: Logger;
  admission: TenantAdmission;
}

/** Builds the SSO side of the service; without SSO_ISSUER_URL the parts exist but every SSO route is 503. */
export function buildSso(deps: SsoDeps) {
  const { config, clock, orm } = deps;
  if (config.NODE_ENV === 'production' && config.SSO_ISSUER_URL?.startsWith('http:') && !config.SSO_ALLOW_HTTP_ISSUER) {
    throw new Error('SSO_ISSUER_URL must be https in production (or set SSO_ALLOW_HTTP_ISSUER=true)');
  }
  const breaker = new CircuitBreaker({
    clock,
    failureThreshold: config.SSO_BREAKER_FAILURE_THRESHOLD,
    openMs: config.SSO_BREAKER_OPEN_SECONDS * 1000,
    timeoutMs: config.SSO_PROVIDER_TIMEOUT_MS,
  });
  const rp = config.SSO_ISSUER_URL
    ? new RelyingParty({
        issuer: config.SSO_ISSUER_URL,
        clientId: config.SSO_CLIENT_ID,
        clientSecret: config.SSO_CLIENT_SECRET,
        redirectUri: `${config.PUBLIC_BASE_URL}/api/v1/auth/sso/callback`,
        allowHttp: config.SSO_ISSUER_URL.startsWith('http:'),
        breaker,
        clock,
      })
    : undefined;
  const admin =
    rp && config.SSO_ADMIN_API_URL && config.SSO_CLIENT_SECRET
      ? new KeycloakAdmin(config.SSO_ADMIN_API_URL, rp, breaker)
      : undefined;
  const ssoAccounts = new SsoAccounts(orm, clock, deps.cache, deps.relay, deps.admission);
  const ssoSessions = new SsoSessions(orm, deps.box, clock);
  const parts = {
    config,
    breaker,
    rp,
    admin,
    accounts: ssoAccounts,
    states: new LoginStates(orm, deps.box, clock),
    ssoSessions,
    sessions: deps.sessions,
  };
  return {
    sso: new SsoLogin(parts, deps.logger),
    ssoSignals: new SsoSignals(parts, clock, deps.logger),
    ssoAccounts,
    ssoSessions,
  };
}
