import { randomUUID } from 'node:crypto';
import type { LivenessLock, Sql } from '@routinely/db';
import type { Clock, Logger } from '@routinely/platform';
import {
  claimChannelRenewals,
  claimDueSyncs,
  type LeaseTaker,
  releaseSyncLease,
  renewSyncLeases,
  syncOwnerLockKey,
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
 * Each lease also names its owner, this process (one owner id per start), which holds a liveness lock (a
 * session advisory lock on a connection of its own) while it lives: a process that is killed loses its
 * session, and its leases are free at once. The TTL stays as the bound when the owner's session outlives it
 * (a network partition the server has not noticed yet).
 * Each take gets its own holder id, and the sync's commit checks it (`lockedLeaseHolder`), so a holder that
 * stalled (or whose liveness connection broke) and lost the row cannot commit over the sync that took it.
 */
export class SyncLeases {
  /** Open holder ids and how many of their rows are not released yet. */
  private readonly open = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private owner = randomUUID();
  private liveness: LivenessLock;

  constructor(
    private readonly db: Sql,
    /** Opens the liveness lock of a key (not yet held); the composition root knows the database to hold it on. */
    private readonly livenessLock: (key: string) => LivenessLock,
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly logger: Logger,
  ) {
    this.liveness = livenessLock(syncOwnerLockKey(this.owner));
  }

  /** Until when a lease taken or renewed now lasts. */
  until(): Date {
    return new Date(this.clock.now().getTime() + this.ttlMs);
  }

  /** The route's take of one row: null when another live holder's lease is unexpired. */
  async take(id: string): Promise<SyncLease | null> {
    const taker = await this.taker();
    if (!(await takeSyncLease(this.db, id, taker, this.clock.now(), this.until()))) return null;
    this.hold(taker.holder, 1);
    return { id, holder: taker.holder };
  }

  /** A lease written by the caller in its own transaction (the first sync after a connection). */
  async prepare(id: string): Promise<SyncLease & { owner: string }> {
    const taker = await this.taker();
    this.hold(taker.holder, 1);
    return { id, ...taker };
  }

  async claimDue(limit: number): Promise<SyncLease[]> {
    const taker = await this.taker();
    const ids = await claimDueSyncs(this.db, taker, this.clock.now(), this.until(), limit);
    this.hold(taker.holder, ids.length);
    return ids.map((id) => ({ id, holder: taker.holder }));
  }

  async claimRenewals(before: Date, limit: number): Promise<SyncLease[]> {
    const taker = await this.taker();
    const ids = await claimChannelRenewals(this.db, taker, this.clock.now(), before, this.until(), limit);
    this.hold(taker.holder, ids.length);
    return ids.map((id) => ({ id, holder: taker.holder }));
  }

  /** Gives the row back (only if this holder still has it) and stops renewing it. */
  async release(lease: SyncLease): Promise<void> {
    const left = (this.open.get(lease.holder) ?? 1) - 1;
    if (left > 0) this.open.set(lease.holder, left);
    else this.open.delete(lease.holder);
    if (this.open.size === 0) this.stopTimer();
    await releaseSyncLease(this.db, lease.id, lease.holder);
  }

  /** The service (re)starts: leases are renewed again, under a new owner (the old one's leases stay free). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.owner = randomUUID();
    this.liveness = this.livenessLock(syncOwnerLockKey(this.owner));
  }

  /**
   * The process is going away: nothing is renewed from now on and the liveness lock is given up, so this
   * process's leases are free at once (what a crash does, without the crash). A sync still running commits
   * nothing once another holder took its row.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.open.clear();
    this.stopTimer();
    await this.liveness.release();
  }

  /** A new holder id under this owner, whose liveness lock is held before any lease names it. */
  private async taker(): Promise<LeaseTaker> {
    await this.liveness.hold();
    return { holder: randomUUID(), owner: this.owner };
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
      // A liveness connection that broke is opened again (its leases may have been taken over meanwhile).
      await this.liveness.hold();
      await renewSyncLeases(this.db, [...this.open.keys()], this.until());
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
