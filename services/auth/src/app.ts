import { databaseReady, Sql } from '@routinely/db';
import { OutboxRelay } from '@routinely/events';
import {
  allowedOriginsFrom,
  backgroundOf,
  type Clock,
  CookieCsrfGuard,
  createTokenVerifier,
  JwksCache,
  type Logger,
  SecretBox,
  type ServiceInstance,
} from '@routinely/platform';
import type { ServiceDeps } from '@routinely/runtime';
import type { FastifyPluginAsync } from 'fastify';
import type { JSONWebKeySet } from 'jose';
import { KeycloakAdmin } from './adapters/keycloak-admin.js';
import { RelyingParty } from './adapters/relying-party.js';
import type { AuthConfig } from './config.js';
import { AccountService } from './domain/accounts.js';
import type { AuthContext } from './domain/context.js';
import { LoginThrottle } from './domain/login-throttle.js';
import { MfaService } from './domain/mfa.js';
import { PasswordHasher } from './domain/passwords.js';
import { ProfileCache } from './domain/profile.js';
import { SessionService } from './domain/sessions.js';
import { SigningKeyStore } from './domain/signing-keys.js';
import { CircuitBreaker } from './domain/sso/circuit-breaker.js';
import { LoginStates } from './domain/sso/login-states.js';
import { SsoAccounts, type TenantAdmission } from './domain/sso/sso-accounts.js';
import { SsoLogin } from './domain/sso/sso-login.js';
import { SsoSessions } from './domain/sso/sso-sessions.js';
import { SsoSignals } from './domain/sso/sso-signals.js';
import { TenantPolicies } from './domain/tenants.js';
import { addAuthRpc } from './grpc/auth-rpc.js';
import { accountRoutes } from './http/accounts/routes.js';
import { jwksRoutes } from './http/jwks/routes.js';
import { mfaRoutes } from './http/mfa/routes.js';
import { sessionRoutes } from './http/sessions/routes.js';
import { ssoLoginRoutes } from './http/sso-login/routes.js';
import { providerRoutes } from './http/sso-providers/routes.js';
import { ssoSignalRoutes } from './http/sso-signals/routes.js';
import { tenantRoutes } from './http/tenants/routes.js';

/** What every host gives a service (the context of @routinely/runtime), and the test doubles this root accepts. */
export type AuthServiceDeps = ServiceDeps<AuthConfig> & {
  /** Test hook: how the login slowdown waits. */
  sleep?: (ms: number) => Promise<void>;
};

export interface AuthServiceInstance extends ServiceInstance {
  /** The public signing keys, for a host that verifies tokens in the same process. */
  jwks(): Promise<JSONWebKeySet>;
}

/** The auth service's API routes, written after the mount (module.ts documents them with `ctx` never used). */
export function apiRoutes(ctx: AuthContext): FastifyPluginAsync {
  return async (app) => {
    await app.register(sessionRoutes(ctx));
    await app.register(accountRoutes(ctx));
    await app.register(mfaRoutes(ctx));
    await app.register(ssoLoginRoutes(ctx));
    await app.register(ssoSignalRoutes(ctx));
    await app.register(providerRoutes(ctx));
    await app.register(tenantRoutes(ctx));
  };
}

interface SsoDeps {
  config: AuthConfig;
  clock: Clock;
  db: Sql;
  box: SecretBox;
  cache: ProfileCache;
  relay: Pick<OutboxRelay, 'kick'>;
  sessions: SessionService;
  logger: Logger;
  admission: TenantAdmission;
}

/** Builds the SSO side of the service; without SSO_ISSUER_URL the parts exist but every SSO route is 503. */
function buildSso(deps: SsoDeps) {
  const { config, clock, db } = deps;
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
  const ssoAccounts = new SsoAccounts(db, clock, deps.cache, deps.relay, deps.admission);
  const ssoSessions = new SsoSessions(db, deps.box, clock);
  const parts = {
    config,
    breaker,
    rp,
    admin,
    accounts: ssoAccounts,
    states: new LoginStates(db, deps.box, clock),
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

/** Composition root of the auth service. Opens nothing by itself; `start` loads keys and begins the relay. */
export function buildService(deps: AuthServiceDeps): AuthServiceInstance {
  const { config, clock, orm } = deps;
  const db = Sql.of(orm);
  const logger = deps.logger.child({ svc: 'auth' });
  const box = new SecretBox(config.ENCRYPTION_KEY);
  const relay = new OutboxRelay({ db, transport: deps.transport, logger });
  const keys = new SigningKeyStore(db, box, clock);
  const hasher = new PasswordHasher({ memoryKiB: config.PASSWORD_MEMORY_KIB, timeCost: config.PASSWORD_TIME_COST });
  const throttle = new LoginThrottle(
    {
      maxFailuresPerAccountIp: config.LOGIN_MAX_FAILURES_PER_ACCOUNT_IP,
      maxFailuresPerIp: config.LOGIN_MAX_FAILURES_PER_IP,
      slowdownAfterAccountFailures: config.LOGIN_SLOWDOWN_AFTER_ACCOUNT_FAILURES,
      windowSeconds: config.LOGIN_FAILURE_WINDOW_SECONDS,
    },
    deps.redis,
    config.INFRA_NAMESPACE,
    deps.sleep,
  );
  const cache = new ProfileCache(config.PROFILE_CACHE_TTL_MS, () => Date.now());
  const sessions = new SessionService({ db, keys, clock, config, revocations: deps.revocations, relay });
  const tenants = new TenantPolicies(db, clock, config.DEFAULT_TENANT_ID);
  const sso = buildSso({ config, clock, db, box, cache, relay, sessions, logger, admission: tenants });
  const ownKeys = new JwksCache(() => keys.jwks());
  const ctx: AuthContext = {
    config,
    clock,
    accounts: new AccountService(db, clock, hasher, throttle, cache, relay, tenants),
    tenants,
    sessions,
    mfa: new MfaService(db, box, clock, config, throttle, cache),
    ...sso,
    verifyOwnToken: createTokenVerifier({
      getKey: ownKeys.getKey,
      issuer: config.JWT_ISSUER,
      audience: config.JWT_AUDIENCE,
      revocations: deps.revocations,
      clock,
    }),
    cookieWrites: new CookieCsrfGuard(allowedOriginsFrom(config)),
  };

  return {
    name: 'auth',
    routes: apiRoutes(ctx),
    rootRoutes: jwksRoutes(keys),
    addGrpc: (server) => addAuthRpc(server, { db, keys, internalAuth: deps.internalAuth }),
    readiness: {
      database: () => databaseReady(orm),
      signing_keys: async () => {
        await keys.load();
      },
    },
    jwks: () => keys.jwks(),
    ...backgroundOf([
      {
        start: async () => {
          await keys.load();
          const restored = await ctx.sessions.restoreRevocations();
          if (restored > 0) logger.info({ restored }, 'restored recent session revocations');
          await hasher.warmUp();
          ctx.sso.warmUp();
        },
      },
      relay,
    ]),
  };
}
