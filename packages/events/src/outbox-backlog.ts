import type { Sql } from '@routinely/db';
import { unpublishedOutbox } from './db/outbox-sql.js';

export interface OutboxBacklog {
  /** Unpublished events. */
  pending: number;
  /** Age of the oldest unpublished event at `now`; 0 when the outbox is drained. */
  oldestAgeSeconds: number;
}

/** How far the relay is behind: read at scrape time for the outbox lag metrics. */
export async function outboxBacklog(db: Sql, now: Date): Promise<OutboxBacklog> {
  const { pending, oldest } = await unpublishedOutbox(db);
  return {
    pending,
    oldestAgeSeconds: oldest === null ? 0 : Math.max(0, (now.getTime() - oldest.getTime()) / 1000),
  };
}
