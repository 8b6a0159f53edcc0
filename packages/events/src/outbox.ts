import type { Sql } from '@routinely/db';
import { type Logger, Pacer, systemClock } from '@routinely/platform';
import { type ClaimedOutboxRow, claimOutbox, releaseOutbox, retireOutbox } from './db/outbox-sql.js';
import type { EventEnvelope } from './envelope.js';
import { type EventTransport, publishInOrder } from './transport.js';

export { EventDeadLetter, eventEntities, InboxMessage, OutboxMessage } from './entities.js';

export interface RelayOptions {
  db: Sql;
  transport: EventTransport;
  logger: Logger;
  pollMs?: number;
  batchSize?: number;
  /** How long a claimed row belongs to this relay before another may publish it again (default 60 s). */
  leaseMs?: number;
  /** Test hook: runs after rows are claimed and before they are published. */
  beforePublish?: (events: EventEnvelope[]) => Promise<void>;
}

/** How long a kick waits for more commits to publish with (at most this much later than at once). */
const GATHER_MS = 20;

/**
 * Publishes outbox rows in id (time) order. A pass claims rows in one short statement (a lease in
 * `claimed_until`, FOR UPDATE SKIP LOCKED so replicas never claim the same row), hands them to the transport
 * outside any transaction and retires them (`published_at`) once the transport confirms: at once for
 * JetStream (stored), in process once every consumer acked or dead-lettered the event (`whenHandled`), which
 * never holds up the next pass. A relay that dies leaves its rows claimed until the lease expires, then
 * another pass publishes them again with the same message id, which JetStream and the consumers' inboxes
 * both absorb. Passes run on every `kick()` (after a commit) and at least every `pollMs`.
 */
export class OutboxRelay {
  private readonly pacer: Pacer;
  private readonly awaiting = new Set<Promise<void>>();
  private readonly handled: string[] = [];
  private marking: Promise<void> | undefined;
  private gathering: NodeJS.Timeout | undefined;

  constructor(private readonly options: RelayOptions) {
    const batchSize = options.batchSize ?? 200;
    this.pacer = new Pacer(
      'outbox-relay',
      async () => ({ more: (await this.pass()).rows >= batchSize, nextAt: null }),
      systemClock,
      options.pollMs ?? 250,
      options.logger,
    );
  }

  start(): void {
    this.pacer.start();
  }

  /**
   * Publish soon instead of at the next poll (call after a commit that enqueued events). The commits of the next
   * GATHER_MS share one pass: a claim walks the index from the oldest unpublished row past the entries retired
   * rows left behind (10-13 ms a claim in a routine fill), and a pass per commit made the claims the largest part
   * of PostgreSQL's work (ADR 004).
   */
  kick(): void {
    if (this.gathering) return;
    this.gathering = setTimeout(() => {
      this.gathering = undefined;
      this.pacer.wake();
    }, GATHER_MS);
  }

  /** Stops polling; rows still awaiting their consumers stay claimed and are published again after the lease. */
  async stop(): Promise<void> {
    clearTimeout(this.gathering);
    this.gathering = undefined;
    await this.pacer.stop();
    await this.marking;
  }

  /** One pass; returns how many events were handed to the transport. */
  async publishBatch(): Promise<number> {
    return (await this.pass()).events;
  }

  /**
   * One pass over up to `batchSize` rows. Their events go to the transport in one go (`publishInOrder`:
   * pipelined on JetStream); a row whose events were all confirmed is retired, one with any refused is released
   * for the next pass at once (not after the lease; its confirmed events go again under the same ids, which
   * JetStream and the consumers' inboxes absorb), and the first refusal is thrown so the pass counts as failed.
   */
  private async pass(): Promise<{ rows: number; events: number }> {
    const rows = await this.claim();
    if (rows.length === 0) return { rows: 0, events: 0 };
    const events = rows.flatMap((row) => row.events);
    let outcomes: PromiseSettledResult<void>[];
    try {
      await this.options.beforePublish?.(events);
      outcomes = await publishInOrder(this.options.transport, events);
    } catch (error) {
      await this.release(rows.map((row) => row.id));
      throw error;
    }
    const held: ClaimedOutboxRow[] = [];
    const refused: string[] = [];
    let first = 0;
    for (const row of rows) {
      const own = outcomes.slice(first, first + row.events.length);
      first += row.events.length;
      if (own.every((o) => o.status === 'fulfilled')) held.push(row);
      else refused.push(row.id);
    }
    try {
      // Not a crash: let the next pass retry these at once, in order, instead of after the lease.
      if (refused.length > 0) await this.release(refused);
    } finally {
      if (held.length > 0) await this.retireWhenHandled(held);
    }
    const failure = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failure) throw failure.reason;
    return { rows: rows.length, events: events.length };
  }

  /** Resolves once every event handed over so far is handled and its row retired (or given up). For tests. */
  async settled(): Promise<void> {
    while (this.awaiting.size > 0) await Promise.all(this.awaiting);
    await this.marking;
  }

  private claim(): Promise<ClaimedOutboxRow[]> {
    return claimOutbox(this.options.db, this.options.leaseMs ?? 60_000, this.options.batchSize ?? 200);
  }

  /** Retires each row once every consumer handled all of its events (at once where the transport stores them). */
  private async retireWhenHandled(rows: ClaimedOutboxRow[]): Promise<void> {
    const { transport, logger } = this.options;
    const whenHandled = transport.whenHandled?.bind(transport);
    if (!whenHandled) return this.retire(rows.map((row) => row.id));
    for (const row of rows) {
      const waiting: Promise<void> = Promise.all(row.events.map((event) => whenHandled(event.id))).then(
        () => {
          this.handled.push(row.id);
          this.markSoon();
        },
        (error: unknown) =>
          logger.warn(
            { err: error, row: row.id, events: row.events.length },
            'events not handled; published again after the lease',
          ),
      );
      this.awaiting.add(waiting);
      void waiting.finally(() => this.awaiting.delete(waiting));
    }
  }

  /** Batches the retiring of handled rows: one update at a time, covering everything handled meanwhile. */
  private markSoon(): void {
    if (this.marking) return;
    this.marking = (async () => {
      while (this.handled.length > 0) {
        const ids = this.handled.splice(0);
        await this.retire(ids).catch((error: unknown) =>
          this.options.logger.warn({ err: error, events: ids.length }, 'outbox rows not retired; published again'),
        );
      }
      this.marking = undefined;
    })();
  }

  private release(ids: string[]): Promise<void> {
    return releaseOutbox(this.options.db, ids);
  }

  private retire(ids: string[]): Promise<void> {
    return retireOutbox(this.options.db, ids);
  }
}
