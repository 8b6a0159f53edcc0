import pg from 'pg';

/** What the liveness lock needs of an ORM: its connection URL (structural, as the lock pool takes it). */
interface LivenessLockOwner {
  config: { get(key: 'clientUrl'): unknown };
}

/**
 * A session-level advisory lock on `key`, held on a connection of its own for as long as its holder lives.
 * Others learn whether the holder is still there with `pg_try_advisory_xact_lock_shared(hashtextextended(key,
 * 0))` (true: nobody holds it). A process that dies (kill -9, OOM) loses its session and the lock with it at
 * once, where a lease it stopped renewing would stay taken until it lapsed. One connection per holder, however
 * many things it marks as its own, so nothing else is pinned to a connection while it works.
 *
 * The connection is opened on the first `hold()`; should it break while the holder lives (a database restart),
 * the next `hold()` opens another one and takes the lock again.
 */
export class LivenessLock {
  private client: pg.Client | undefined;
  private holding: Promise<void> | undefined;
  private released = false;

  constructor(
    private readonly orm: LivenessLockOwner,
    readonly key: string,
  ) {}

  /** Makes sure the lock is held (idempotent; concurrent callers share one attempt). */
  hold(): Promise<void> {
    if (this.released) return Promise.reject(new Error(`the liveness lock ${this.key} was released`));
    this.holding ??= this.connect().catch((error: unknown) => {
      this.holding = undefined;
      throw error;
    });
    return this.holding;
  }

  /** Gives the lock up (the holder goes away): whatever it marked as its own is free at once. */
  async release(): Promise<void> {
    this.released = true;
    const client = this.client;
    this.client = undefined;
    this.holding = undefined;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: String(this.orm.config.get('clientUrl')),
      keepAlive: true,
      application_name: 'routinely liveness lock',
    });
    const lost = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.holding = undefined;
    };
    // A broken connection must not crash the process: the lock is gone with it, and the next hold() retakes it.
    client.on('error', lost);
    client.on('end', lost);
    await client.connect();
    try {
      // Blocks only while a checker briefly holds the shared form of this key in its own transaction.
      await client.query('select pg_advisory_lock(hashtextextended($1, 0))', [this.key]);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    if (this.released) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
  }
}
