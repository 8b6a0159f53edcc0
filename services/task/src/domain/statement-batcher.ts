/**
 * Gathers concurrent statements of one kind into one call of `write` for all of them (issue 15: under load
 * every create, and every task read, paid a statement, a socket write and a PostgreSQL wake-up of its own).
 * A call starts at once while fewer than `maxInFlight` are running, so a lone request waits for nothing;
 * under load, whatever queued while they ran goes out together (at most `maxBatch` of one `keyOf`, e.g. one
 * owner) as soon as one finishes. `write` must be all or nothing (one statement): when it fails for a batch,
 * nothing of it was written, and each item is sent again alone so that only the failing ones fail. Every
 * caller is answered only after its own statement ended (for a write: committed).
 */
export class StatementBatcher<I, O> {
  private readonly queue: { item: I; resolve: (out: O) => void; reject: (error: unknown) => void }[] = [];
  private inFlight = 0;

  constructor(
    private readonly write: (items: I[]) => Promise<O[]>,
    private readonly limits: { maxInFlight: number; maxBatch: number; keyOf: (item: I) => string },
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.startWrites();
    });
  }

  private startWrites(): void {
    while (this.inFlight < this.limits.maxInFlight && this.queue.length > 0) {
      const batch = this.nextBatch();
      this.inFlight++;
      void this.writeBatch(batch).finally(() => {
        this.inFlight--;
        this.startWrites();
      });
    }
  }

  /** The oldest queued item and the next queued ones of its key (the others keep their places). */
  private nextBatch(): StatementBatcher<I, O>['queue'] {
    const [first] = this.queue;
    if (!first) return [];
    const key = this.limits.keyOf(first.item);
    const batch: StatementBatcher<I, O>['queue'] = [];
    const rest: StatementBatcher<I, O>['queue'] = [];
    for (const entry of this.queue) {
      if (batch.length < this.limits.maxBatch && this.limits.keyOf(entry.item) === key) batch.push(entry);
      else rest.push(entry);
    }
    this.queue.splice(0, this.queue.length, ...rest);
    return batch;
  }

  private async writeBatch(batch: StatementBatcher<I, O>['queue']): Promise<void> {
    try {
      const outs = await this.write(batch.map((entry) => entry.item));
      for (const [i, entry] of batch.entries()) entry.resolve(outs[i] as O);
    } catch (error) {
      const [only] = batch;
      if (batch.length === 1 && only) return only.reject(error);
      await Promise.all(
        batch.map(async (entry) => {
          try {
            const [out] = await this.write([entry.item]);
            entry.resolve(out as O);
          } catch (alone) {
            entry.reject(alone);
          }
        }),
      );
    }
  }
}
