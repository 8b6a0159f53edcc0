import { enqueue, integrationEvents, makeEvent } from '@routinely/events';
import {
  AppError,
  checkReturnUrl as checkAgainst,
  notFound,
  type Owner,
  randomToken,
  safeReturnLocation,
  sha256,
} from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import { pkcePair } from '../adapters/oauth.js';
import { type IntegrationRow, PROVIDERS, type Provider } from '../db/entities.js';
import { deleteIntegrationExternalEvents } from '../db/external-events-sql.js';
import {
  consumeOAuthState,
  deleteIntegrations,
  insertIntegration,
  lockPendingStart,
  ownerIntegration,
  ownerIntegrations,
  pendingIntegrations,
  updateIntegration,
  writeIntegrationChange,
} from '../db/integrations-sql.js';
import { forgetWrittenEvents } from '../db/write-back-sql.js';
import { untilCalendarHolds } from './calendar-wait.js';
import { openOrRenewChannel, stopChannel } from './channels.js';
import { callbackPath, type IntegrationContext, sealContext } from './context.js';
import { apiFor, tokenColumns } from './credentials.js';
import { type IntegrationPatch, loadIntegration, saveIntegration } from './integration-rows.js';
import { describeFailure } from './log-safe.js';
import { integrationSnapshot } from './snapshots.js';
import { runLeasedSync } from './sync.js';

/** An OAuth state is good for this long after oauth/start (contract: 10 minutes). */
const STATE_TTL_MS = 10 * 60_000;

function isProvider(value: string): value is Provider {
  return (PROVIDERS as readonly string[]).includes(value);
}

export async function listIntegrations(ctx: IntegrationContext, owner: Owner): Promise<IntegrationRow[]> {
  return ownerIntegrations(ctx.db, owner);
}

/** Another user's or tenant's integration is "not found" (existence is not leaked). */
export async function findOwned(ctx: IntegrationContext, owner: Owner, id: string): Promise<IntegrationRow> {
  const row = await ownerIntegration(ctx.db, owner, id);
  if (!row) throw notFound('Integration');
  return row;
}

/** Where a connection lands without a `return_url`: the console's calendar settings, which show the outcome. */
export const DEFAULT_CONNECTION_RETURN_URL = '/settings/calendars';

/** Where the browser goes back to after the provider: the platform's rule (ADR 014), same-site or allowed origins. */
function returnUrlPolicy(ctx: IntegrationContext) {
  return { publicBaseUrl: ctx.config.PUBLIC_BASE_URL, allowedOrigins: ctx.config.OAUTH_ALLOWED_RETURN_ORIGINS };
}

function checkReturnUrl(ctx: IntegrationContext, value: string): string {
  return checkAgainst(value, { ...returnUrlPolicy(ctx), loc: ['body', 'return_url'] });
}

/**
 * Prepares an authorization request for a row (new on oauth/start, existing on reconnect): a fresh single-use
 * state (only its hash is kept), a PKCE verifier sealed with the row, the return URL. Answers the columns the
 * caller writes with the row.
 */
function authorize(ctx: IntegrationContext, row: Pick<IntegrationRow, 'id' | 'provider'>, returnUrl: string) {
  const adapter = ctx.adapters[row.provider];
  if (!adapter.configured()) {
    throw new AppError('provider_not_configured', `No client id is configured for ${row.provider}`);
  }
  const state = randomToken(32);
  const pkce = pkcePair();
  const now = ctx.clock.now();
  const change = {
    oauthStateHash: sha256(state),
    oauthStateExpiresAt: new Date(now.getTime() + STATE_TTL_MS),
    oauthVerifierSealed: ctx.box.seal(pkce.verifier, sealContext.verifier(row.id)),
    oauthReturnUrl: returnUrl,
    updatedAt: now,
  } satisfies IntegrationPatch;
  const authUrl = adapter.authUrl({
    state,
    codeChallenge: pkce.challenge,
    redirectUri: `${ctx.config.PUBLIC_BASE_URL}${callbackPath}`,
  });
  return { change, answer: { auth_url: authUrl, integration_id: row.id } };
}

/**
 * oauth/start: the user's pending row for this provider is authorised again (a fresh state replaces its old
 * one) rather than a new row made for every call, so repeated starts leave one pending row per provider.
 * A transaction-scoped advisory lock on (user, provider) keeps two concurrent starts from both inserting.
 */
export async function startConnection(ctx: IntegrationContext, owner: Owner, provider: string, returnUrl: string) {
  if (!isProvider(provider)) throw notFound('Provider');
  if (!ctx.adapters[provider].configured()) {
    throw new AppError('provider_not_configured', `No client id is configured for ${provider}`);
  }
  const target = checkReturnUrl(ctx, returnUrl);
  return ctx.db.transaction(async (sql) => {
    await lockPendingStart(sql, owner, provider);
    const now = ctx.clock.now();
    const [row, ...abandoned] = await pendingIntegrations(sql, owner, provider);
    let answer: Awaited<ReturnType<typeof authorize>>['answer'];
    if (row) {
      const authorized = authorize(ctx, row, target);
      await writeIntegrationChange(sql, row, authorized.change);
      answer = authorized.answer;
    } else {
      const fresh = {
        id: uuidv7(),
        tenantId: owner.tenantId,
        userId: owner.userId,
        provider,
        status: 'pending',
        createdAt: now,
        updatedAt: now,
      } satisfies Partial<IntegrationRow>;
      const authorized = authorize(ctx, fresh, target);
      await insertIntegration(sql, { ...fresh, ...authorized.change });
      answer = authorized.answer;
    }
    // Pending rows hold no tokens and were never announced: older ones (from before reuse) just go.
    await deleteIntegrations(
      sql,
      owner.tenantId,
      abandoned.map((old) => old.id),
    );
    return answer;
  });
}

export async function reconnect(ctx: IntegrationContext, owner: Owner, id: string, returnUrl: string | undefined) {
  // No provider call here: the read and the new authorisation commit together.
  return ctx.db.transaction(async (sql) => {
    const row = await ownerIntegration(sql, owner, id);
    if (!row) throw notFound('Integration');
    // No return URL given: where the row's last authorisation was to go back to (the contract's default).
    const target =
      returnUrl === undefined
        ? safeReturnLocation(row.oauthReturnUrl ?? DEFAULT_CONNECTION_RETURN_URL, returnUrlPolicy(ctx))
        : checkReturnUrl(ctx, returnUrl);
    const { change, answer } = authorize(ctx, row, target);
    await writeIntegrationChange(sql, row, change);
    return answer;
  });
}

function withParams(target: string, params: Record<string, string>): string {
  // Relative return URLs stay relative: resolve against a dummy base, then strip it again.
  const base = 'http://return.invalid';
  const url = new URL(target, base);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.origin === base ? `${url.pathname}${url.search}${url.hash}` : url.toString();
}

export type CallbackResult = { ok: false } | { ok: true; location: string };

/**
 * The browser's return from the provider. The state is consumed first (single use, unexpired), so a replay
 * changes nothing. Then: code exchange with the PKCE verifier, the account, the first sync and a push channel;
 * the answer is a redirect to the return URL with the outcome.
 */
export async function finishConnection(
  ctx: IntegrationContext,
  query: { code?: string | undefined; state?: string | undefined; error?: string | undefined },
): Promise<CallbackResult> {
  if (!query.state) return { ok: false };
  const id = await consumeOAuthState(ctx.db, sha256(query.state), ctx.clock.now());
  if (!id) return { ok: false };
  const row = await loadIntegration(ctx, id);
  if (!row) throw new Error('the integration of a consumed OAuth state is gone');
  // Checked again as it leaves (a row stored under an older rule or origin list); kept as reconnect's default.
  const returnUrl = safeReturnLocation(row.oauthReturnUrl ?? DEFAULT_CONNECTION_RETURN_URL, returnUrlPolicy(ctx));
  const verifier = row.oauthVerifierSealed ? ctx.box.open(row.oauthVerifierSealed, sealContext.verifier(id)) : '';
  // Changes not written yet: the verifier is single-use and goes with the row's next write.
  let unsaved: IntegrationPatch = { oauthVerifierSealed: null };
  row.oauthVerifierSealed = null;
  const save = async (patch: IntegrationPatch) => {
    await saveIntegration(ctx, row, { ...unsaved, ...patch });
    unsaved = {};
  };
  const fail = async (code: string) => {
    // A failed reconnect of a working row keeps it working; a new row records why it never connected.
    const failure: IntegrationPatch = row.status !== 'active' ? { status: 'error', lastError: code } : {};
    await save({ ...failure, updatedAt: ctx.clock.now() });
    return {
      ok: true as const,
      location: withParams(returnUrl, { integration_id: id, provider: row.provider, status: 'error', error: code }),
    };
  };
  if (query.error || !query.code) return fail(query.error ? 'access_denied' : 'invalid_request');
  const adapter = ctx.adapters[row.provider];
  try {
    const tokens = await adapter.exchangeCode(query.code, verifier, `${ctx.config.PUBLIC_BASE_URL}${callbackPath}`);
    // A token answer without `scope` granted what was asked (RFC 6749 5.1).
    const grantedScopes = (tokens.scopes ?? adapter.scopes).join(' ');
    await save({ ...tokenColumns(ctx, id, tokens), grantedScopes, updatedAt: ctx.clock.now() });
    const accountEmail = await adapter.accountEmail(apiFor(ctx, id));
    row.accountEmail = accountEmail;
    unsaved.accountEmail = accountEmail;
  } catch (error) {
    ctx.logger.warn(
      { integration_id: id, provider: row.provider, err: describeFailure(error) },
      'OAuth code exchange failed',
    );
    return fail('exchange_failed');
  }
  const now = ctx.clock.now();
  // The first sync's lease is written with the activation, so the worker stays out while it runs.
  const lease = await ctx.leases.prepare(id);
  let outcome: Awaited<ReturnType<typeof runLeasedSync>>;
  try {
    await ctx.db.transaction(async (sql) => {
      const activation: IntegrationPatch = {
        ...unsaved,
        status: 'active',
        lastError: null,
        nextSyncAt: now,
        syncLeaseUntil: ctx.leases.until(),
        syncLeaseHolder: lease.holder,
        syncLeaseOwner: lease.owner,
        updatedAt: now,
      };
      Object.assign(row, activation);
      await updateIntegration(sql, row, activation);
      await enqueue(
        sql,
        makeEvent(
          integrationEvents.integrationConnected,
          { tenantId: row.tenantId, userId: row.userId, at: now },
          { integration: integrationSnapshot(row) },
        ),
      );
    });
    unsaved = {};
    ctx.relay.kick();
    outcome = await runLeasedSync(ctx, lease);
  } finally {
    await ctx.leases.release(lease);
  }
  if (!outcome.ok && outcome.reason === 'reauth_required') return fail('reauth_required');
  await openOrRenewChannel(ctx, id);
  return {
    ok: true,
    location: withParams(returnUrl, { integration_id: id, provider: row.provider, status: 'active' }),
  };
}

/**
 * Disconnect: the row stays as `revoked` with its tokens gone, the push channel is stopped, the grant is revoked
 * upstream (best effort) and its events leave our copy; `integrationRevoked` tells the unified calendar to drop
 * every event of the integration, and the answer waits until it did (bounded, ADR 061).
 */
export async function disconnect(ctx: IntegrationContext, owner: Owner, id: string): Promise<void> {
  const row = await findOwned(ctx, owner, id);
  if (row.status === 'revoked') return;
  const grant = row.refreshTokenSealed
    ? ctx.box.open(row.refreshTokenSealed, sealContext.refresh(id))
    : row.accessTokenSealed
      ? ctx.box.open(row.accessTokenSealed, sealContext.access(id))
      : null;
  const forgetChannel = await stopChannel(ctx, row);
  if (grant) {
    await ctx.adapters[row.provider].revoke(grant).catch((error: unknown) => {
      ctx.logger.warn({ integration_id: id, err: describeFailure(error) }, 'upstream revoke failed');
    });
  }
  const now = ctx.clock.now();
  const revoked = await ctx.db.transaction(async (sql) => {
    // The integration's events leave our copy in the transaction that revokes it.
    await deleteIntegrationExternalEvents(sql, id);
    // Write-back stops with the grant; its calendar stays in the account (no grant left to delete it with), and
    // a later connection that turns write-back on finds it again by its marker.
    await forgetWrittenEvents(sql, id);
    const revocation: IntegrationPatch = {
      ...forgetChannel,
      writeBackUser: null,
      writeBackCalendarId: null,
      status: 'revoked',
      accessTokenSealed: null,
      refreshTokenSealed: null,
      accessExpiresAt: null,
      syncCursor: null,
      oauthStateHash: null,
      oauthStateExpiresAt: null,
      oauthVerifierSealed: null,
      nextSyncAt: null,
      updatedAt: now,
    };
    Object.assign(row, revocation);
    await updateIntegration(sql, row, revocation);
    const event = makeEvent(
      integrationEvents.integrationRevoked,
      { tenantId: row.tenantId, userId: row.userId, at: now },
      { integration: integrationSnapshot(row) },
    );
    await enqueue(sql, event);
    return event;
  });
  ctx.relay.kick();
  // Answered once the unified calendar no longer shows the integration's events (or the wait's bound passed).
  await untilCalendarHolds(ctx, [revoked.id]);
}
