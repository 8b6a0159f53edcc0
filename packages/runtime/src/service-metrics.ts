import { connectionPoolOf, type Orm, Sql } from '@routinely/db';
import { type OutboxBacklog, outboxBacklog } from '@routinely/events';
import { type Clock, observeAtScrape } from '@routinely/platform';

const OUTBOX_LAG = {
  name: 'routinely_outbox_lag_seconds',
  help: 'Age of the oldest outbox event not yet published, per service (0 when drained)',
  labelNames: ['service'],
} as const;
const OUTBOX_PENDING = {
  name: 'routinely_outbox_pending_events',
  help: 'Outbox events not yet published, per service',
  labelNames: ['service'],
} as const;
const POOL_CONNECTIONS = {
  name: 'routinely_db_pool_connections',
  help: "Connections of a service's database pool, by state (used, free)",
  labelNames: ['service', 'state'],
} as const;
const POOL_PENDING = {
  name: 'routinely_db_pool_pending_acquires',
  help: "Queries waiting for a connection of a service's database pool",
  labelNames: ['service'],
} as const;

/**
 * Scrape-time gauges of one hosted service's database: its outbox backlog and its connection pool.
 * Returns the function that removes them when the service stops.
 */
export function observeServiceDatabase(service: string, orm: Orm, clock: Clock): () => void {
  // Both outbox gauges are collected together in one scrape: they share the query in flight.
  let inflight: Promise<OutboxBacklog> | undefined;
  const readBacklog = () => {
    inflight ??= outboxBacklog(Sql.of(orm), clock.now()).finally(() => {
      inflight = undefined;
    });
    return inflight;
  };
  const labels = { service };
  // The pool's gauges come first: a scrape reads gauges in the order they were registered, so the pool is read
  // before the backlog query takes a connection. Read after it, a pool with none free counted the scrape's own
  // query as a pending acquire (and a used connection) on a service doing nothing.
  const removers = [
    observeAtScrape(POOL_CONNECTIONS, { service, state: 'used' }, () => connectionPoolOf(orm)?.numUsed()),
    observeAtScrape(POOL_CONNECTIONS, { service, state: 'free' }, () => connectionPoolOf(orm)?.numFree()),
    observeAtScrape(POOL_PENDING, labels, () => connectionPoolOf(orm)?.numPendingAcquires()),
    observeAtScrape(OUTBOX_LAG, labels, async () => (await readBacklog()).oldestAgeSeconds),
    observeAtScrape(OUTBOX_PENDING, labels, async () => (await readBacklog()).pending),
  ];
  return () => {
    for (const remove of removers) remove();
  };
}
