import { AppError, type Clock, JwksCache } from '@routinely/platform';
import { decodeJwt, decodeProtectedHeader, type JWTPayload, errors as joseErrors, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { z } from 'zod';
import { appErrorIn, type CircuitBreaker, ssoUnavailable } from '../domain/sso/circuit-breaker.js';
import { invalidSsoToken } from '../domain/sso/sso-errors.js';

export interface RelyingPartyOptions {
  issuer: string;
  clientId: string;
  clientSecret: string | undefined;
  redirectUri: string;
  allowHttp: boolean;
  breaker: CircuitBreaker;
  clock: Clock;
}

/**
 * The End-User claims, from an ID token or the userinfo endpoint: `sub` must be a string; every other claim
 * is kept as sent and read defensively where it is used (`email_verified === true`, a string `email`).
 */
const providerClaimsSchema = z.looseObject({ sub: z.string() });
export type ProviderClaims = z.infer<typeof providerClaimsSchema>;

function parseClaims(claims: unknown): ProviderClaims {
  const parsed = providerClaimsSchema.safeParse(claims);
  if (!parsed.success) throw invalidSsoToken('The token has no subject');
  return parsed.data;
}

/** The provider's JWKS as this service reads it: the members jose uses to pick and import a key. */
const optionalText = z.string().optional();
const jwksSchema = z.object({
  keys: z.array(
    z.looseObject({
      kty: z.string(),
      kid: optionalText,
      alg: optionalText,
      use: optionalText,
      crv: optionalText,
      x: optionalText,
      y: optionalText,
      n: optionalText,
      e: optionalText,
    }),
  ),
});

/** A provider call that failed for a reason other than the provider being down becomes `fallback`. */
function rethrow(error: unknown, fallback: () => AppError): never {
  const carried = appErrorIn(error);
  if (carried) throw carried;
  throw fallback();
}

/**
 * The OpenID Connect relying party (openid-client v6): discovery, the authorization-code flow with PKCE,
 * ID-token verification against the provider's JWKS, userinfo, RP-initiated logout and the
 * client-credentials token the admin API needs. Every request goes through the circuit breaker.
 */
export class RelyingParty {
  private configuration: oidc.Configuration | undefined;
  private discovering: Promise<oidc.Configuration> | undefined;
  private readonly jwks: JwksCache;
  private serviceToken: { value: string; until: number } | undefined;

  constructor(private readonly options: RelyingPartyOptions) {
    this.jwks = new JwksCache(async () => {
      const uri = (await this.config()).serverMetadata().jwks_uri;
      if (!uri) throw ssoUnavailable('The identity provider publishes no JWKS');
      const response = await options.breaker.fetch(uri, { headers: { accept: 'application/json' } });
      const jwks = response.ok ? jwksSchema.safeParse(await response.json().catch(() => undefined)) : undefined;
      if (!jwks?.success) throw ssoUnavailable('The identity provider JWKS could not be read');
      return jwks.data;
    });
  }

  get issuer(): string {
    return this.options.issuer;
  }

  get clientId(): string {
    return this.options.clientId;
  }

  /** Discovery, once; a failed discovery is retried by the next call (the breaker bounds how often). */
  async config(): Promise<oidc.Configuration> {
    if (this.configuration) return this.configuration;
    this.discovering ??= (async () => {
      const { clientId, clientSecret, breaker, allowHttp } = this.options;
      try {
        const configuration = await oidc.discovery(
          new URL(this.options.issuer),
          clientId,
          { redirect_uris: [this.options.redirectUri], response_types: ['code'] },
          clientSecret ? oidc.ClientSecretBasic(clientSecret) : oidc.None(),
          { [oidc.customFetch]: breaker.fetch, execute: allowHttp ? [oidc.allowInsecureRequests] : [] },
        );
        // ID tokens from the token endpoint are verified against the JWKS too, not only trusted over TLS.
        oidc.enableNonRepudiationChecks(configuration);
        this.configuration = configuration;
        return configuration;
      } catch (error) {
        return rethrow(error, () => ssoUnavailable('Identity provider discovery failed'));
      } finally {
        this.discovering = undefined;
      }
    })();
    return this.discovering;
  }

  async authorizationUrl(params: { state: string; nonce: string; codeChallenge: string; prompt?: string }) {
    const config = await this.config();
    return oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.options.redirectUri,
      scope: 'openid email profile',
      response_type: 'code',
      state: params.state,
      nonce: params.nonce,
      code_challenge: params.codeChallenge,
      code_challenge_method: 'S256',
      ...(params.prompt ? { prompt: params.prompt } : {}),
    });
  }

  /** Exchanges the code of the browser's return; the ID token's signature, iss, aud, nonce and exp are checked. */
  async exchangeCode(
    callbackUrl: URL,
    checks: { state: string; nonce: string; codeVerifier: string },
  ): Promise<{ claims: ProviderClaims; idToken: string }> {
    const config = await this.config();
    try {
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims || !tokens.id_token) throw invalidSsoToken('The provider returned no ID token');
      this.checkAuthorizedParty(claims);
      return { claims: parseClaims(claims), idToken: tokens.id_token };
    } catch (error) {
      return rethrow(error, () => invalidSsoToken('The provider refused the authorization code'));
    }
  }

  /** Verifies a JWT the provider signed for this client: signature by its JWKS, iss, aud, exp (and nbf). */
  async verifyProviderJwt(token: string): Promise<JWTPayload> {
    const metadata = (await this.config()).serverMetadata();
    const algorithms = (metadata.id_token_signing_alg_values_supported ?? ['RS256']).filter((a) => a !== 'none');
    try {
      const { payload } = await jwtVerify(token, this.jwks.getKey, {
        algorithms,
        issuer: this.options.issuer,
        audience: this.options.clientId,
        currentDate: this.options.clock.now(),
        clockTolerance: 30,
        requiredClaims: ['sub', 'iat'],
      });
      this.checkAuthorizedParty(payload);
      return payload;
    } catch (error) {
      if (error instanceof AppError && error.code !== 'service_unavailable') throw error;
      if (error instanceof AppError) throw ssoUnavailable();
      const expired = error instanceof joseErrors.JWTExpired;
      throw invalidSsoToken(expired ? 'The single sign-on token has expired' : 'The single sign-on token is invalid');
    }
  }

  /**
   * OpenID Connect Core 3.1.3.7 (5): an `azp` that is present must be our client id, and a token for several
   * audiences must name us as its authorized party. openid-client checks only the second (for the code flow)
   * and jose neither, so both paths check here: a token issued to another client is not ours to accept.
   */
  private checkAuthorizedParty(claims: JWTPayload): void {
    const several = Array.isArray(claims.aud) && claims.aud.length > 1;
    if ((claims.azp !== undefined || several) && claims.azp !== this.options.clientId) {
      throw invalidSsoToken('The single sign-on token was issued to another client');
    }
  }

  /** Verifies a logout token: as a provider JWT, but `sub` is optional (a `sid` alone is allowed). */
  async verifyLogoutJwt(token: string): Promise<JWTPayload> {
    const metadata = (await this.config()).serverMetadata();
    const algorithms = (metadata.id_token_signing_alg_values_supported ?? ['RS256']).filter((a) => a !== 'none');
    const { payload } = await jwtVerify(token, this.jwks.getKey, {
      algorithms,
      issuer: this.options.issuer,
      audience: this.options.clientId,
      currentDate: this.options.clock.now(),
      requiredClaims: ['iat', 'jti'],
    });
    return payload;
  }

  /**
   * A token from a client: a provider ID token (verified here, nonce not required) or a provider access
   * token (its claims come from the userinfo endpoint, which is what accepts or refuses it).
   */
  async claimsOfToken(token: string): Promise<{ claims: ProviderClaims; idToken: string | undefined }> {
    if (looksLikeIdToken(token)) {
      const payload = await this.verifyProviderJwt(token);
      return { claims: parseClaims(payload), idToken: token };
    }
    const config = await this.config();
    try {
      const info = await oidc.fetchUserInfo(config, token, oidc.skipSubjectCheck);
      return { claims: parseClaims(info), idToken: undefined };
    } catch (error) {
      return rethrow(error, () => invalidSsoToken('The provider did not accept the access token'));
    }
  }

  /** RP-initiated logout URL, or undefined when the provider has no end_session_endpoint. */
  async endSessionUrl(idTokenHint: string | undefined, postLogoutRedirectUri: string): Promise<URL | undefined> {
    const config = await this.config();
    if (!config.serverMetadata().end_session_endpoint) return undefined;
    return oidc.buildEndSessionUrl(config, {
      post_logout_redirect_uri: postLogoutRedirectUri,
      client_id: this.options.clientId,
      ...(idTokenHint ? { id_token_hint: idTokenHint } : {}),
    });
  }

  /** Keycloak's "forgot password" page; other providers reach recovery from their login page. */
  recoveryUrl(): URL {
    const url = new URL(`${this.options.issuer.replace(/\/+$/, '')}/login-actions/reset-credentials`);
    url.searchParams.set('client_id', this.options.clientId);
    return url;
  }

  /** A client-credentials access token of this client (for the admin API), cached until shortly before expiry. */
  async clientToken(refresh = false): Promise<string> {
    const now = this.options.clock.now().getTime();
    if (!refresh && this.serviceToken && this.serviceToken.until > now) return this.serviceToken.value;
    if (!this.options.clientSecret) throw ssoUnavailable('The admin API needs SSO_CLIENT_SECRET');
    const config = await this.config();
    try {
      const tokens = await oidc.clientCredentialsGrant(config);
      const ttl = Math.max(0, (tokens.expires_in ?? 60) - 30);
      this.serviceToken = { value: tokens.access_token, until: now + ttl * 1000 };
      return tokens.access_token;
    } catch (error) {
      return rethrow(error, () => ssoUnavailable('The provider refused the client-credentials grant'));
    }
  }
}

/** A JWT that is not an access token by its own typing (RFC 9068 `at+jwt`, Keycloak's `typ: Bearer`). */
function looksLikeIdToken(token: string): boolean {
  if (token.split('.').length !== 3) return false;
  try {
    const header = decodeProtectedHeader(token);
    const payload = decodeJwt(token);
    return String(header.typ ?? '').toLowerCase() !== 'at+jwt' && payload.typ !== 'Bearer';
  } catch {
    // Three dot-separated parts that are not a JWT: a tampered or garbage ID token, refused as one.
    return true;
  }
}
