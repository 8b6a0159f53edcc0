import type { PassResult } from '@routinely/platform';
import { claimChannelRenewals, claimDueSyncs, nextSyncDue, releaseSyncLease } from '../db/integrations-sql.js';
import { CHANNEL_RENEW_BEFORE_MS, openOrRenewChannel } from '../domain/channels.js';
import type { IntegrationContext } from '../domain/context.js';
import { runLeasedSync, SYNC_LEASE_MS } from '../domain/sync.js';

const BATCH = 10;

/**
 * Polling and push-triggered syncs: every active integration whose `next_sync_at` is due (the poll interval
 * after its last sync, or now after a verified push) is claimed under a lease and synced.
 */
export async function syncPass(ctx: IntegrationContext): Promise<PassResult & { synced: number }> {
  const now = ctx.clock.now();
  const ids = await claimDueSyncs(ctx.orm, now, new Date(now.getTime() + SYNC_LEASE_MS), BATCH);
  for (const id of ids) {
    try {
      await runLeasedSync(ctx, id);
    } finally {
      await releaseSyncLease(ctx.orm, id);
    }
  }
  return { more: ids.length === BATCH, nextAt: await nextSyncDue(ctx.orm), synced: ids.length };
}

/** Push channels expiring soon (or never opened) are renewed ahead of time; polling covers any failure. */
export async function channelPass(ctx: IntegrationContext): Promise<PassResult & { renewed: number }> {
  const now = ctx.clock.now();
  const ids = await claimChannelRenewals(
    ctx.orm,
    now,
    new Date(now.getTime() + CHANNEL_RENEW_BEFORE_MS),
    new Date(now.getTime() + SYNC_LEASE_MS),
    BATCH,
  );
  let renewed = 0;
  for (const id of ids) {
    try {
      if (await openOrRenewChannel(ctx, id)) renewed += 1;
    } finally {
      await releaseSyncLease(ctx.orm, id);
    }
  }
  // A failed renewal is retried on the next poll, not at once.
  return { more: ids.length === BATCH && renewed > 0, nextAt: null, renewed };
}
