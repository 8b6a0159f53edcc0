import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import Provider, { interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';
import { handleAdminApi } from './fake-idp-admin.js';
import { FakeIdpBrowser } from './fake-idp-browser.js';
import { escapeHtml } from './fake-idp-http.js';
import { handleInteraction } from './fake-idp-interactions.js';
import { type FakeIdpAccount, type FakeIdpClient, FakeIdpStore, storeAdapter } from './fake-idp-store.js';

export type { FakeIdpAccount, FakeIdpClient, FakeIdpRole } from './fake-idp-store.js';

export interface FakeIdpOptions {
  port?: number;
  host?: string;
  /** Keycloak-style realm: the issuer is `{origin}/realms/{realm}`, the admin API `{origin}/admin/realms/{realm}`. */
  realm?: string;
}

/** What the fake does with incoming requests: answer, fail with 503, or never answer (until closed). */
export type FakeIdpHealth = 'up' | 'failing' | 'hanging';

/**
 * A real OpenID Provider (`oidc-provider`) in Keycloak's shape, for tests and local runs: discovery, JWKS,
 * authorization code + PKCE, token, userinfo, RP-initiated logout with back-channel logout delivery,
 * client credentials, `prompt=create`; plus the parts of Keycloak's realm admin REST the service uses.
 * Logins happen through a plain HTML form, so a test walks the flow by following redirects and cookies
 * (see `browser()`), and a person can use it from a real browser.
 */
export class FakeIdp {
  readonly store = new FakeIdpStore();
  /** Requests that reached the fake (any path), to show a circuit breaker kept calls away. */
  requestCount = 0;
  health: FakeIdpHealth = 'up';
  /** Back-channel logout deliveries made by the provider, with the receiver's status. */
  readonly backchannelDeliveries: { url: string; status: number }[] = [];
  /**
   * Claims added to every ID token the provider issues from now on, e.g. `{ azp: 'another-client' }` for a
   * provider that names another client as the authorized party. `aud`, `iss`, `sub` and `exp` stay the provider's.
   */
  idTokenExtraClaims: Record<string, unknown> = {};
  private readonly hanging = new Set<ServerResponse>();
  private provider!: Provider;

  private constructor(
    private readonly server: Server,
    readonly origin: string,
    readonly realm: string,
    private readonly signingKey: { privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey']; jwk: JWK },
  ) {}

  get issuer(): string {
    return `${this.origin}/realms/${this.realm}`;
  }

  get adminUrl(): string {
    return `${this.origin}/admin/realms/${this.realm}`;
  }

  static async start(options: FakeIdpOptions = {}): Promise<FakeIdp> {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const jwk: JWK = {
      ...(await exportJWK(privateKey)),
      kid: `fake-${randomBytes(4).toString('hex')}`,
      alg: 'RS256',
      use: 'sig',
    };
    let idp: FakeIdp | undefined;
    const server = createServer((req, res) => {
      void idp?.handle(req, res);
    });
    await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const host = options.host && options.host !== '0.0.0.0' ? options.host : '127.0.0.1';
    idp = new FakeIdp(server, `http://${host}:${port}`, options.realm ?? 'routinely', { privateKey, jwk });
    idp.provider = idp.buildProvider();
    return idp;
  }

  addAccount(input: Partial<FakeIdpAccount> & { email: string; password: string }): FakeIdpAccount {
    return this.store.addAccount(input);
  }

  /** Registers a confidential client (also a Keycloak "service account" client for the admin API). */
  addClient(client: FakeIdpClient): void {
    this.store.clients.set(client.clientId, { ...client, uuid: crypto.randomUUID() });
    const metadata: Record<string, unknown> = {
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uris: client.redirectUris,
      post_logout_redirect_uris: client.postLogoutRedirectUris ?? [],
      grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    };
    if (client.backchannelLogoutUri) {
      metadata.backchannel_logout_uri = client.backchannelLogoutUri;
      metadata.backchannel_logout_session_required = true;
    }
    const map = this.store.model('Client');
    map.set(client.clientId, { payload: metadata, expiresAt: undefined });
  }

  /** A cookie-keeping user agent that signs in through the login form, as a browser would. */
  browser(): FakeIdpBrowser {
    return new FakeIdpBrowser(this.origin);
  }

  /** Signs a JWT with the provider's own key (for crafting ID and logout tokens in tests). */
  async sign(claims: JWTPayload, header: { typ?: string } = {}): Promise<string> {
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: this.signingKey.jwk.kid, ...header })
      .sign(this.signingKey.privateKey);
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.requestCount += 1;
    if (this.health === 'hanging') {
      this.hanging.add(res);
      return;
    }
    if (this.health === 'failing') {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('unavailable');
      return;
    }
    const url = req.url ?? '/';
    const realmPath = `/realms/${this.realm}`;
    try {
      if (url.startsWith(`/admin${realmPath}/`)) return await handleAdminApi(this, this.provider, req, res);
      if (url.startsWith(`${realmPath}/interaction/`)) return await handleInteraction(this, this.provider, req, res);
      if (url.startsWith(`${realmPath}/login-actions/reset-credentials`)) {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Forgot your password?</h1>');
        return;
      }
      if (url === realmPath || url.startsWith(`${realmPath}/`) || url.startsWith(`${realmPath}?`)) {
        // Mounted under the issuer's path, as oidc-provider expects (it derives its URLs from originalUrl).
        (req as IncomingMessage & { originalUrl?: string }).originalUrl = url;
        req.url = url.slice(realmPath.length) || '/';
        return this.provider.callback()(req, res);
      }
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
    }
  }

  private buildProvider(): Provider {
    const store = this.store;
    const policy = interactionPolicy.base();
    // Keycloak's sign-up page is reached with prompt=create (OpenID Connect Prompt Create 1.0).
    policy.add(new interactionPolicy.Prompt({ name: 'create', requestable: true }), 0);
    const realmPath = `/realms/${this.realm}`;
    const provider = new Provider(this.issuer, {
      adapter: storeAdapter(store),
      jwks: { keys: [this.signingKey.jwk] },
      cookies: { keys: [randomBytes(16).toString('hex')] },
      claims: {
        openid: ['sub'],
        email: ['email', 'email_verified'],
        profile: ['name', 'given_name', 'family_name'],
      },
      // Claims go into the ID token too (Keycloak does), not only to userinfo.
      conformIdTokenClaims: false,
      pkce: { required: () => true },
      ttl: {
        AccessToken: 600,
        AuthorizationCode: 60,
        ClientCredentials: 600,
        Grant: 3600,
        IdToken: 600,
        Interaction: 600,
        Session: 3600,
      },
      responseTypes: ['code'],
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        backchannelLogout: { enabled: true },
        rpInitiatedLogout: {
          enabled: true,
          postLogoutSuccessSource: async (ctx: KoaContextWithOIDC) => {
            ctx.body = '<!doctype html><html><body><h1>Signed out</h1></body></html>';
          },
          logoutSource: async (ctx: KoaContextWithOIDC, form: string) => {
            ctx.body = `<!doctype html><html><body><h1>Sign out?</h1>${form}<button form="op.logoutForm" name="logout" value="yes">Sign out</button></body></html>`;
          },
        },
      },
      interactions: { url: (_ctx, interaction) => `${realmPath}/interaction/${interaction.uid}`, policy },
      findAccount: async (_ctx, id) => {
        const account = store.accounts.get(id);
        if (!account?.enabled) return undefined;
        return {
          accountId: id,
          claims: async () => ({
            sub: account.sub,
            email: account.email,
            email_verified: account.emailVerified,
            name: [account.givenName, account.familyName].filter(Boolean).join(' ') || account.email,
            given_name: account.givenName,
            family_name: account.familyName,
          }),
        };
      },
      // First-party client: no consent screen, the requested scopes are granted (as Keycloak does by default).
      loadExistingGrant: async (ctx) => {
        const oidc = ctx.oidc;
        if (!oidc.client || !oidc.session?.accountId) return undefined;
        const grantId = oidc.result?.consent?.grantId ?? oidc.session.grantIdFor(oidc.client.clientId);
        if (grantId) {
          const existing = await oidc.provider.Grant.find(grantId);
          if (existing) return existing;
        }
        const grant = new oidc.provider.Grant({ clientId: oidc.client.clientId, accountId: oidc.session.accountId });
        grant.addOIDCScope('openid email profile');
        await grant.save();
        return grant;
      },
      // Outbound calls (back-channel logout) may go to a loopback service: no SSRF guard in a local fake.
      fetch: async (url, options) => {
        const { dispatcher: _dropped, ...rest } = options as RequestInit & { dispatcher?: unknown };
        const response = await fetch(url, rest);
        this.backchannelDeliveries.push({ url: String(url), status: response.status });
        return response;
      },
      renderError: async (ctx, out) => {
        ctx.type = 'html';
        ctx.body = `<!doctype html><h1>${escapeHtml(String(out.error))}</h1><p>${escapeHtml(String(out.error_description ?? ''))}</p>`;
      },
    });
    provider.on('server_error', () => {});
    // oidc-provider's own way to add claims to an ID token (IdToken#set), applied as each one is issued.
    const issue = provider.IdToken.prototype.issue;
    const extra = () => this.idTokenExtraClaims;
    provider.IdToken.prototype.issue = function (context) {
      if (context.use === 'idtoken') for (const [claim, value] of Object.entries(extra())) this.set(claim, value);
      return issue.call(this, context);
    };
    return provider;
  }
}
