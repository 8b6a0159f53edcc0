import type { Sql } from '@routinely/db';
import { counterMetric, histogramMetric, LAG_BUCKETS, observeAtScrape } from '@routinely/platform';
import { countPendingWrites } from '../db/write-back-sql.js';

const syncs = counterMetric(
  'routinely_integration_syncs_total',
  'Calendar syncs by provider and outcome (ok, busy, reauth_required, failed)',
  ['provider', 'outcome'],
);

const pushes = counterMetric(
  'routinely_integration_push_notifications_total',
  'Push notifications received by provider and result (accepted, rejected)',
  ['provider', 'result'],
);

export function countSync(provider: string, outcome: 'ok' | 'busy' | 'reauth_required' | 'failed'): void {
  syncs.inc({ provider, outcome });
}

export function countPush(provider: string, result: 'accepted' | 'rejected'): void {
  pushes.inc({ provider, result });
}

const writeLag = histogramMetric(
  'routinely_integration_write_back_lag_seconds',
  'From a task change recorded to its event written upstream, by provider',
  ['provider'],
  LAG_BUCKETS,
);

export function observeWriteLag(provider: string, ms: number): void {
  writeLag.observe({ provider }, Math.max(0, ms) / 1000);
}

/** Pending write-back changes (of integrations that write back), counted at scrape. */
export function observePendingWrites(db: Sql): () => void {
  return observeAtScrape(
    {
      name: 'routinely_integration_write_back_pending',
      help: 'Task changes waiting to be written to a connected calendar',
      labelNames: [],
    },
    {},
    () => countPendingWrites(db),
  );
}
