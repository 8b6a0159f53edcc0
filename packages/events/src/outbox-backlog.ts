import type { Orm } from '@routinely/db';

export interface OutboxBacklog {
  /** Unpublished events. */
  pending: number;
  /** Age of the oldest unpublished event at `now`; 0 when the outbox is drained. */
  oldestAgeSeconds: number;
}

/** How far the relay is behind: read at scrape time for the outbox lag metrics. */
export async function outboxBacklog(orm: Orm, now: Date): Promise<OutboxBacklog> {
  const { rows } = await orm.em
    .getKnex()
    .raw<{ rows: { pending: number; oldest: Date | null }[] }>(
      'select count(*)::int as pending, min(created_at) as oldest from outbox where published_at is null',
    );
  const row = rows[0];
  const oldest = row?.oldest ? new Date(row.oldest).getTime() : null;
  return {
    pending: row?.pending ?? 0,
    oldestAgeSeconds: oldest === null ? 0 : Math.max(0, (now.getTime() - oldest) / 1000),
  };
}
