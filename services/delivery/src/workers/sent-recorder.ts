import type { Orm } from '@routinely/db';

interface SentItem {
  id: string;
  leaseToken: string;
  statusCode: number | null;
  at: Date;
  secretSealed: string | null;
  done: { resolve: () => void; reject: (error: unknown) => void };
}

/**
 * Records successful webhook tries in groups: one UPDATE (fenced by each row's lease token) per few
 * milliseconds instead of one commit, and one WAL flush, per delivery. The endpoint's failure count (and its
 * circuit) is reset only where it is set, so concurrent successes never queue on the endpoint's row lock.
 */
export class SentRecorder {
  private pending: SentItem[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly orm: Orm,
    private readonly maxBatch = 100,
    private readonly lingerMs = 5,
  ) {}

  record(item: Omit<SentItem, 'done'>): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ ...item, done: { resolve, reject } });
      if (this.pending.length >= this.maxBatch) void this.flush();
      else this.timer ??= setTimeout(() => void this.flush(), this.lingerMs);
    });
  }

  private async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const items = this.pending.splice(0);
    if (items.length === 0) return;
    try {
      await this.orm.em.getKnex().raw(
        `with v as (
           select * from unnest(?::uuid[], ?::uuid[], ?::int[], ?::timestamptz[], ?::text[])
             as v(id, lease_token, status_code, at, secret_sealed)),
         sent as (
           update deliveries d set status = 'sent', attempts = d.attempts + 1, next_attempt_at = null,
             lease_until = null, lease_token = null, last_status_code = v.status_code, last_error = null,
             last_attempt_at = v.at, delivered_at = v.at, secret_sealed = coalesce(d.secret_sealed, v.secret_sealed),
             updated_at = v.at
           from v where d.id = v.id and d.lease_token = v.lease_token
           returning d.endpoint_id)
         update webhook_endpoints set consecutive_failures = 0, circuit_open_until = null
         where id in (select endpoint_id from sent) and (consecutive_failures <> 0 or circuit_open_until is not null)`,
        [
          items.map((i) => i.id),
          items.map((i) => i.leaseToken),
          items.map((i) => i.statusCode),
          items.map((i) => i.at),
          items.map((i) => i.secretSealed),
        ] as never, // arrays bind as PostgreSQL arrays; knex's RawBinding type does not model that
      );
      for (const item of items) item.done.resolve();
    } catch (error) {
      for (const item of items) item.done.reject(error);
    }
  }
}
