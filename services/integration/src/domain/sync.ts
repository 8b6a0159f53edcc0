import { enqueue, integrationEvents, makeEvent } from '@routinely/events';
import { AppError } from '@routinely/platform';
import { ProviderBusy, ReauthRequired } from '../adapters/http.js';
import type { IntegrationRow } from '../db/entities.js';
import { integrationById, lockedLeaseHolder, noteSyncFailure, writeIntegrationChange } from '../db/integrations-sql.js';
import { untilCalendarHolds } from './calendar-wait.js';
import type { IntegrationContext } from './context.js';
import { apiFor } from './credentials.js';
import { applyChanges, type SyncCounts } from './external-events.js';
import { loadIntegration } from './integration-rows.js';
import { describeFailure } from './log-safe.js';
import { countSync } from './metrics.js';
import { integrationSnapshot } from './snapshots.js';
import type { SyncLease } from './sync-leases.js';

const DAY_MS = 86_400_000;

export type SyncOutcome =
  | { ok: true; counts: SyncCounts; eventIds: string[] }
  | { ok: false; reason: 'busy'; retryAt: Date }
  | { ok: false; reason: 'reauth_required' }
  | { ok: false; reason: 'failed' }
  | { ok: false; reason: 'lease_lost' };

/** The sync's lease lapsed (its holder stalled past the TTL) and another sync took the integration over. */
class LeaseLost extends Error {
  constructor() {
    super('the sync lease was taken over');
    this.name = 'LeaseLost';
  }
}

/** Marks a connection as needing the user: tokens dropped, `integrationFailed` for the bell. */
export async function markReauthRequired(ctx: IntegrationContext, id: string): Promise<void> {
  await ctx.db.transaction(async (sql) => {
    const asRead = await integrationById(sql, id);
    if (!asRead || asRead.status === 'revoked') return;
    const now = ctx.clock.now();
    const change = {
      status: 'error',
      lastError: 'reauth_required',
      accessTokenSealed: null,
      refreshTokenSealed: null,
      accessExpiresAt: null,
      updatedAt: now,
    } satisfies Partial<IntegrationRow>;
    const row = { ...asRead, ...change };
    await writeIntegrationChange(sql, asRead, change);
    await enqueue(
      sql,
      makeEvent(
        integrationEvents.integrationFailed,
        { tenantId: row.tenantId, userId: row.userId, at: now },
        { integration: integrationSnapshot(row), reauth_required: true },
      ),
    );
  });
  ctx.relay.kick();
}

/**
 * Runs one sync of an integration whose lease the caller holds: fetches the provider's changes (incremental
 * from the stored cursor, else the bounded window), applies them with their events in one transaction and
 * moves the cursor only then, so a crash re-reads the same changes (idempotent by external id). The commit
 * happens only while the lease is still this holder's.
 */
export async function runLeasedSync(ctx: IntegrationContext, lease: SyncLease): Promise<SyncOutcome> {
  const { id } = lease;
  const row = await loadIntegration(ctx, id);
  if (row?.status !== 'active') return { ok: false, reason: 'failed' };
  const adapter = ctx.adapters[row.provider];
  const now = ctx.clock.now();
  const window = {
    from: new Date(now.getTime() - ctx.config.INTEGRATION_SYNC_PAST_DAYS * DAY_MS),
    to: new Date(now.getTime() + ctx.config.INTEGRATION_SYNC_FUTURE_DAYS * DAY_MS),
  };
  try {
    const set = await adapter.fetchChanges(apiFor(ctx, id), row.syncCursor ?? null, window);
    const { counts, eventIds } = await ctx.db.transaction(async (sql) => {
      if ((await lockedLeaseHolder(sql, id)) !== lease.holder) throw new LeaseLost();
      const fresh = await integrationById(sql, id);
      if (!fresh) throw new Error(`integration ${id} is gone`);
      const applied = await applyChanges(sql, fresh, set, ctx.clock.now());
      await writeIntegrationChange(sql, fresh, {
        syncCursor: set.cursor,
        lastSyncedAt: ctx.clock.now(),
        lastError: null,
        nextSyncAt: nextPoll(ctx),
        updatedAt: ctx.clock.now(),
      });
      return applied;
    });
    ctx.relay.kick();
    countSync(row.provider, 'ok');
    return { ok: true, counts, eventIds };
  } catch (error) {
    if (error instanceof LeaseLost) {
      ctx.logger.warn({ integration_id: id }, 'sync lease lapsed and was taken over; this sync commits nothing');
      return { ok: false, reason: 'lease_lost' };
    }
    if (error instanceof ReauthRequired) {
      await markReauthRequired(ctx, id);
      countSync(row.provider, 'reauth_required');
      return { ok: false, reason: 'reauth_required' };
    }
    if (error instanceof ProviderBusy) {
      await setAfterFailure(ctx, row, 'provider_throttled', error.retryAt);
      countSync(row.provider, 'busy');
      return { ok: false, reason: 'busy', retryAt: error.retryAt };
    }
    ctx.logger.warn(
      { integration_id: id, provider: row.provider, err: describeFailure(error) },
      'integration sync failed',
    );
    await setAfterFailure(ctx, row, 'sync_failed', nextPoll(ctx));
    countSync(row.provider, 'failed');
    return { ok: false, reason: 'failed' };
  }
}

function nextPoll(ctx: IntegrationContext): Date {
  return new Date(ctx.clock.now().getTime() + ctx.config.INTEGRATION_POLL_INTERVAL_S * 1000);
}

async function setAfterFailure(ctx: IntegrationContext, row: IntegrationRow, lastError: string, next: Date) {
  await noteSyncFailure(ctx.db, row.id, lastError, next, ctx.clock.now());
}

/**
 * The route's sync: exact counts, or the reason as a problem (one sync per integration at a time). It answers
 * once the unified calendar shows what it changed (or the wait's bound passed), lease already released.
 */
export async function syncOnRequest(ctx: IntegrationContext, row: IntegrationRow): Promise<SyncCounts> {
  const { counts, eventIds } = await leasedSyncOnRequest(ctx, row);
  await untilCalendarHolds(ctx, eventIds);
  return counts;
}

async function leasedSyncOnRequest(
  ctx: IntegrationContext,
  row: IntegrationRow,
): Promise<{ counts: SyncCounts; eventIds: string[] }> {
  if (row.status === 'revoked') throw new AppError('conflict', 'The integration is revoked');
  if (row.status !== 'active') throw new AppError('conflict', `The integration is ${row.status}: connect it again`);
  const lease = await ctx.leases.take(row.id);
  if (!lease) throw new AppError('conflict', 'A sync of this integration is already running');
  try {
    const outcome = await runLeasedSync(ctx, lease);
    if (outcome.ok) return outcome;
    if (outcome.reason === 'reauth_required') {
      throw new AppError('conflict', 'The provider refused the grant: reconnect the integration (reauth_required)');
    }
    if (outcome.reason === 'lease_lost') {
      throw new AppError('conflict', 'Another sync of this integration took over; its counts are not these');
    }
    if (outcome.reason === 'busy') {
      const seconds = Math.max(1, Math.ceil((outcome.retryAt.getTime() - ctx.clock.now().getTime()) / 1000));
      throw new AppError('service_unavailable', 'The provider asked us to retry later', {
        headers: { 'retry-after': String(seconds) },
      });
    }
    throw new AppError('service_unavailable', 'The provider could not be synced; try again later');
  } finally {
    await ctx.leases.release(lease);
  }
}
