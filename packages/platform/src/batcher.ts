/**
 * Gathers concurrent statements of one kind into one call of `write` for all of them (under load
 * every create, and every task read, paid a statement, a socket write and a PostgreSQL wake-up of its own; every
 * authenticated request two Redis commands of its own).
 * A call starts at once while fewer than `maxInFlight` are running, so a lone request waits for nothing;
 * under load, whatever queued while they ran goes out together (at most `maxBatch` of one `keyOf`, e.g. one
 * owner) as soon as one finishes. `write` must be all or nothing (one statement): when it fails for a batch,
 * nothing of it was written, and each item is sent again alone so that only the failing ones fail. Every
 * caller is answered only after its own statement ended (for a write: committed).
 */
export class Batcher<I, O> {
  private readonly queue: { item: I; resolve: (out: O) => void; reject: (error: unknown) => void }[] = [];
  private inFlight = 0;
  /** Keys with a statement running, when `onePerKey`. */
  private readonly busyKeys = new Set<string>();

  /**
   * @param limits.onePerKey at most one statement per key at a time: a key's next batch waits for the
   *   running one (creates of one owner: each statement then sees the positions the previous one took)
   */
  constructor(
    private readonly write: (items: I[]) => Promise<O[]>,
    private readonly limits: { maxInFlight: number; maxBatch: number; keyOf: (item: I) => string; onePerKey?: boolean },
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.startWrites();
    });
  }

  private startWrites(): void {
    while (this.inFlight < this.limits.maxInFlight) {
      const next = this.nextBatch();
      if (!next) return;
      this.inFlight++;
      if (this.limits.onePerKey) this.busyKeys.add(next.key);
      void this.writeBatch(next.batch).finally(() => {
        this.inFlight--;
        this.busyKeys.delete(next.key);
        this.startWrites();
      });
    }
  }

  /**
   * The oldest queued item whose key may start and the next queued ones of its key (the others keep their
   * places); undefined when nothing may start.
   */
  private nextBatch(): { key: string; batch: Batcher<I, O>['queue'] } | undefined {
    const first = this.queue.find((entry) => !this.busyKeys.has(this.limits.keyOf(entry.item)));
    if (!first) return undefined;
    const key = this.limits.keyOf(first.item);
    const batch: Batcher<I, O>['queue'] = [];
    const rest: Batcher<I, O>['queue'] = [];
    for (const entry of this.queue) {
      if (batch.length < this.limits.maxBatch && this.limits.keyOf(entry.item) === key) batch.push(entry);
      else rest.push(entry);
    }
    this.queue.splice(0, this.queue.length, ...rest);
    return { key, batch };
  }

  private async writeBatch(batch: Batcher<I, O>['queue']): Promise<void> {
    try {
      const outs = await this.write(batch.map((entry) => entry.item));
      for (const [i, entry] of batch.entries()) entry.resolve(outs[i] as O);
    } catch (error) {
      const [only] = batch;
      if (batch.length === 1 && only) return only.reject(error);
      // One after the other, in order: a rare path, and positions stay distinct as in a batch.
      for (const entry of batch) {
        try {
          const [out] = await this.write([entry.item]);
          entry.resolve(out as O);
        } catch (alone) {
          entry.reject(alone);
        }
      }
    }
  }
}

/**
 * A batcher whose items may all share one call, whoever they belong to (single-task reads and tree versions in
 * PostgreSQL; rate-limit counters and session revocations in Redis): one call at a time, at most 64 items each.
 * One at a time makes the batches larger: at 50 connections of single-task reads, 4 at once gave about 4.4 reads
 * per statement and 51-66 µs of PostgreSQL CPU per read, 1 at once about 10 reads and 29-34 µs, with the same
 * read rate and p99 (bench/README.md). A lone item still goes at once; the cost is that a slow call
 * holds the items queued behind it.
 */
export function oneCallAtATime<I, O>(call: (items: I[]) => Promise<O[]>): Batcher<I, O> {
  return new Batcher(call, { maxInFlight: 1, maxBatch: 64, keyOf: () => 'any' });
}
