import { randomUUID } from 'node:crypto';
import { type Orm, Sql } from '@routinely/db';
import type { Clock, Logger } from '@routinely/platform';
import {
  claimChannelRenewals,
  claimDueSyncs,
  releaseSyncLease,
  renewSyncLeases,
  takeSyncLease,
} from '../db/integrations-sql.js';

/** One holder's claim on one integration's sync (several rows of a worker batch share a holder). */
export interface SyncLease {
  id: string;
  holder: string;
}

/**
 * The "a sync is running" state of integrations, as short leases this process renews while it holds them
 * (Kubernetes-lease style): every quarter of the TTL, one UPDATE extends all rows of the holders still open here.
 * A process that dies stops renewing, so its integrations are free again within one TTL (20 s by default),
 * where a fixed 5-minute lease used to keep a crashed sync's integration answering 409 for five minutes.
 * Each take gets its own holder id, and the sync's commit checks it (`lockedLeaseHolder`), so a holder that
 * stalled past its TTL and lost the row cannot commit over the sync that took it.
 */
export class SyncLeases {
  /** Open holder ids and how many of their rows are not released yet. */
  private readonly open = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly orm: Orm,
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly logger: Logger,
  ) {}

  /** Until when a lease taken or renewed now lasts. */
  until(): Date {
    return new Date(this.clock.now().getTime() + this.ttlMs);
  }

  /** The route's take of one row: null when another holder's lease is unexpired. */
  async take(id: string): Promise<SyncLease | null> {
    const holder = randomUUID();
    if (!(await takeSyncLease(Sql.pool(this.orm), id, holder, this.clock.now(), this.until()))) return null;
    this.hold(holder, 1);
    return { id, holder };
  }

  /** A lease written by the caller in its own transaction (the first sync after a connection). */
  prepare(id: string): SyncLease {
    const holder = randomUUID();
    this.hold(holder, 1);
    return { id, holder };
  }

  async claimDue(limit: number): Promise<SyncLease[]> {
    const holder = randomUUID();
    const ids = await claimDueSyncs(Sql.pool(this.orm), holder, this.clock.now(), this.until(), limit);
    this.hold(holder, ids.length);
    return ids.map((id) => ({ id, holder }));
  }

  async claimRenewals(before: Date, limit: number): Promise<SyncLease[]> {
    const holder = randomUUID();
    const ids = await claimChannelRenewals(Sql.pool(this.orm), holder, this.clock.now(), before, this.until(), limit);
    this.hold(holder, ids.length);
    return ids.map((id) => ({ id, holder }));
  }

  /** Gives the row back (only if this holder still has it) and stops renewing it. */
  async release(lease: SyncLease): Promise<void> {
    const left = (this.open.get(lease.holder) ?? 1) - 1;
    if (left > 0) this.open.set(lease.holder, left);
    else this.open.delete(lease.holder);
    if (this.open.size === 0) this.stopTimer();
    await releaseSyncLease(Sql.pool(this.orm), lease.id, lease.holder);
  }

  /** The service (re)starts: leases are renewed again. */
  start(): void {
    this.stopped = false;
  }

  /** The process is going away: nothing is renewed from now on (what a crash does, without the crash). */
  stop(): void {
    this.stopped = true;
    this.open.clear();
    this.stopTimer();
  }

  private hold(holder: string, rows: number): void {
    if (rows === 0 || this.stopped) return;
    this.open.set(holder, rows);
    this.timer ??= setInterval(() => void this.renew(), Math.max(250, Math.floor(this.ttlMs / 4)));
    this.timer.unref();
  }

  private async renew(): Promise<void> {
    if (this.open.size === 0) return;
    try {
      await renewSyncLeases(Sql.pool(this.orm), [...this.open.keys()], this.until());
    } catch (error) {
      // The next tick tries again; a sync whose lease lapses meanwhile loses its commit, nothing else.
      this.logger.warn({ err: error instanceof Error ? error.name : 'unknown' }, 'sync leases could not be renewed');
    }
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
