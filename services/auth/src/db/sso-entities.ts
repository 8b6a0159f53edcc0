import { defineEntity, p } from '@routinely/db';

/** A user's identity at a provider. Users are keyed by (issuer, sub), never by email (docs/adr/014). */
const SsoIdentity = defineEntity({
  name: 'SsoIdentity',
  tableName: 'sso_identities',
  uniques: [
    { name: 'sso_identities_issuer_subject_key', properties: ['issuer', 'subject'] },
    { name: 'sso_identities_user_issuer_key', properties: ['userId', 'issuer'] },
  ],
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid().fieldName('tenant_id'),
    userId: p.uuid().fieldName('user_id'),
    issuer: p.string().length(512),
    subject: p.string().length(255),
    createdAt: p.datetime().fieldName('created_at'),
  },
});

/**
 * The provider side of a local session opened by SSO: the provider's `sid` (for back-channel logout) and
 * the ID token (sealed; the `id_token_hint` of RP-initiated logout).
 */
const SsoSession = defineEntity({
  name: 'SsoSession',
  tableName: 'sso_sessions',
  indexes: [
    { name: 'sso_sessions_provider_sid_idx', properties: ['issuer', 'providerSid'] },
    { name: 'sso_sessions_subject_idx', properties: ['issuer', 'subject'] },
  ],
  properties: {
    sessionId: p.uuid().primary().fieldName('session_id'),
    tenantId: p.uuid().fieldName('tenant_id'),
    userId: p.uuid().fieldName('user_id').index('sso_sessions_user_idx'),
    issuer: p.string().length(512),
    subject: p.string().length(255),
    providerSid: p.string().length(255).nullable().fieldName('provider_sid'),
    idToken: p.text().nullable().fieldName('id_token'),
    createdAt: p.datetime().fieldName('created_at'),
  },
});

/** One started browser login: single-use state, nonce and PKCE verifier, bound to the starting browser. */
const SsoLoginState = defineEntity({
  name: 'SsoLoginState',
  tableName: 'sso_login_states',
  properties: {
    stateHash: p.string().length(64).primary().fieldName('state_hash'),
    /** sha256 of the flow cookie set on the browser that started the login (login CSRF defence). */
    browserHash: p.string().length(64).fieldName('browser_hash'),
    nonce: p.string().length(128),
    /** The PKCE code verifier, sealed with the state hash as associated data. */
    codeVerifier: p.text().fieldName('code_verifier'),
    returnUrl: p.text().fieldName('return_url'),
    tenantId: p.uuid().fieldName('tenant_id'),
    expiresAt: p.datetime().fieldName('expires_at').index('sso_login_states_expires_idx'),
    consumedAt: p.datetime().nullable().fieldName('consumed_at'),
  },
});

/** Ids of provider messages already acted on (logout-token `jti`, IdP event `id`), kept past their window. */
const SsoSeenMessage = defineEntity({
  name: 'SsoSeenMessage',
  tableName: 'sso_seen_messages',
  properties: {
    key: p.string().length(64).primary(),
    kind: p.string().length(20),
    expiresAt: p.datetime().fieldName('expires_at').index('sso_seen_messages_expires_idx'),
  },
});

export const ssoEntities = [SsoIdentity, SsoSession, SsoLoginState, SsoSeenMessage];
