/** A serialized answer and the version of the data it was built from (read in the same snapshot). */
export interface StoredAnswer {
  version: string;
  body: Buffer;
}

/**
 * Serialized answers of one process, least recently used first out, bounded by their total size in bytes.
 * It decides nothing about freshness: a reader hands the stored version to PostgreSQL with every read and
 * uses the body only if the data still has that version. An entry is therefore never wrong, only useless,
 * and no other instance has to be told about writes.
 */
export class AnswerCache {
  private readonly entries = new Map<string, StoredAnswer>();
  private bytes = 0;

  /**
   * @param maxBytes total size of the bodies kept (0 keeps none)
   * @param maxEntryBytes larger answers are not kept, so that one huge tree does not evict every other
   */
  constructor(
    private readonly maxBytes: number,
    private readonly maxEntryBytes = Math.floor(maxBytes / 8),
  ) {}

  get(key: string): StoredAnswer | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      // Map keeps insertion order: re-inserting makes the entry the most recently used.
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, answer: StoredAnswer): void {
    this.delete(key);
    if (answer.body.length > this.maxEntryBytes) return;
    this.entries.set(key, answer);
    this.bytes += answer.body.length;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.body.length;
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.body.length;
  }

  /** Total size of the stored bodies (tests, metrics). */
  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}
