import type { ApiCall, TokenSet } from '../adapters/adapter.js';
import { ProviderError, providerFetch, ReauthRequired } from '../adapters/http.js';
import type { IntegrationRow } from '../db/entities.js';
import { type IntegrationContext, sealContext } from './context.js';
import { type IntegrationPatch, loadIntegration, saveIntegration } from './integration-rows.js';

/** Refresh this long before the provider's stated expiry, so a call never starts with a dying token. */
const REFRESH_MARGIN_MS = 60_000;

/** The token columns of a new token set, sealed for the row (a refresh token only when one came). */
export function tokenColumns(ctx: IntegrationContext, id: string, tokens: TokenSet): IntegrationPatch {
  return {
    accessTokenSealed: ctx.box.seal(tokens.accessToken, sealContext.access(id)),
    ...(tokens.refreshToken ? { refreshTokenSealed: ctx.box.seal(tokens.refreshToken, sealContext.refresh(id)) } : {}),
    accessExpiresAt: tokens.expiresAt,
  };
}

/**
 * Authorised calls for one integration: the access token is refreshed before it expires and once more when
 * the provider answers 401; refreshed tokens are saved at once (a rotated refresh token must not be lost).
 * `invalid_grant` on refresh means the user withdrew consent or the grant expired: ReauthRequired.
 */
export function apiFor(ctx: IntegrationContext, integrationId: string): ApiCall {
  let access: string | undefined;

  const load = async (): Promise<IntegrationRow> => {
    const row = await loadIntegration(ctx, integrationId);
    if (!row?.accessTokenSealed) throw new ReauthRequired();
    return row;
  };

  const refresh = async (): Promise<string> => {
    const row = await loadIntegration(ctx, integrationId);
    if (!row?.refreshTokenSealed) throw new ReauthRequired();
    const adapter = ctx.adapters[row.provider];
    let tokens: TokenSet;
    try {
      tokens = await adapter.refresh(ctx.box.open(row.refreshTokenSealed, sealContext.refresh(row.id)));
    } catch (error) {
      if (error instanceof ProviderError && error.oauthError === 'invalid_grant') throw new ReauthRequired();
      throw error;
    }
    await saveIntegration(ctx, row, { ...tokenColumns(ctx, row.id, tokens), updatedAt: ctx.clock.now() });
    return tokens.accessToken;
  };

  const current = async (): Promise<string> => {
    if (access) return access;
    const row = await load();
    const expiresAt = row.accessExpiresAt?.getTime() ?? 0;
    if (expiresAt - REFRESH_MARGIN_MS <= ctx.clock.now().getTime()) return refresh();
    return ctx.box.open(row.accessTokenSealed ?? '', sealContext.access(row.id));
  };

  const http = {
    clock: ctx.clock,
    timeoutMs: ctx.config.INTEGRATION_PROVIDER_TIMEOUT_MS,
    maxInlineRetryMs: ctx.config.INTEGRATION_MAX_INLINE_RETRY_MS,
  };
  const call = (token: string, what: string, url: string, init: RequestInit) =>
    providerFetch(http, what, url, {
      ...init,
      headers: { ...(init.headers as Record<string, string> | undefined), authorization: `Bearer ${token}` },
    });

  return async (what, url, init = {}) => {
    access = await current();
    try {
      return await call(access, what, url, init);
    } catch (error) {
      if (!(error instanceof ProviderError && error.status === 401)) throw error;
      access = await refresh();
      return call(access, what, url, init);
    }
  };
}
