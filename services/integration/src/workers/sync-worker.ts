import type { PassResult } from '@routinely/platform';
import { nextSyncDue } from '../db/integrations-sql.js';
import { CHANNEL_RENEW_BEFORE_MS, openOrRenewChannel } from '../domain/channels.js';
import type { IntegrationContext } from '../domain/context.js';
import { runLeasedSync } from '../domain/sync.js';

const BATCH = 10;

/**
 * Polling and push-triggered syncs: every active integration whose `next_sync_at` is due (the poll interval
 * after its last sync, or now after a verified push) is claimed under a lease and synced.
 */
export async function syncPass(ctx: IntegrationContext): Promise<PassResult & { synced: number }> {
  const leases = await ctx.leases.claimDue(BATCH);
  for (const lease of leases) {
    try {
      await runLeasedSync(ctx, lease);
    } finally {
      await ctx.leases.release(lease);
    }
  }
  return { more: leases.length === BATCH, nextAt: await nextSyncDue(ctx.db), synced: leases.length };
}

/** Push channels expiring soon (or never opened) are renewed ahead of time; polling covers any failure. */
export async function channelPass(ctx: IntegrationContext): Promise<PassResult & { renewed: number }> {
  const before = new Date(ctx.clock.now().getTime() + CHANNEL_RENEW_BEFORE_MS);
  const leases = await ctx.leases.claimRenewals(before, BATCH);
  let renewed = 0;
  for (const lease of leases) {
    try {
      if (await openOrRenewChannel(ctx, lease.id)) renewed += 1;
    } finally {
      await ctx.leases.release(lease);
    }
  }
  // A failed renewal is retried on the next poll, not at once.
  return { more: leases.length === BATCH && renewed > 0, nextAt: null, renewed };
}
