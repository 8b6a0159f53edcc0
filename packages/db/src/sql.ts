import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import type { Orm } from './orm.js';
import { readPoolOf, reportReadPoolQuery, toPositional } from './read-pool.js';

type Knex = ReturnType<EntityManager['getKnex']>;
/** A knex instance or transaction; both run raw SQL with real bind parameters (arrays included). */
type Runner = Pick<Knex, 'raw'>;

/**
 * Raw SQL on a service's schema (services keep their queries in src/db/*-sql.ts). Bindings go to PostgreSQL as parameters (not inlined), so arrays bind
 * as `?::uuid[]` and values never need escaping.
 */
export class Sql {
  private constructor(
    private readonly runner: Runner,
    /** Set outside transactions: where `rows` runs a named hot read (read-pool.ts, opened on first use). */
    private readonly readPool?: () => pg.Pool,
  ) {}

  /**
   * Runs `work` in one transaction on a fresh EntityManager: its statements and the outbox rows it
   * enqueues on `sql` commit (or roll back) together.
   */
  static transaction<T>(orm: Orm, work: (sql: Sql, em: EntityManager) => Promise<T>): Promise<T> {
    return orm.em.fork().transactional((em) => {
      const trx = em.getTransactionContext<Runner>();
      return work(new Sql(trx ?? em.getKnex()), em);
    });
  }

  /**
   * Runs `work` in one transaction of raw SQL only, without an EntityManager (no fork, no unit of work to
   * flush at commit): for hot writes (their outbox rows go in through `enqueue(sql, ...)` like any other).
   */
  static rawTransaction<T>(orm: Orm, work: (sql: Sql) => Promise<T>): Promise<T> {
    return orm.em.getKnex().transaction((trx) => work(new Sql(trx)));
  }

  /**
   * The statements of a unit of work someone else opened (a consumer's handler, a route's em): they run in
   * its transaction when it has one, so they commit with what the caller writes on `em`.
   */
  static within(em: EntityManager): Sql {
    return new Sql(em.getTransactionContext<Runner>() ?? em.getKnex());
  }

  static pool(orm: Orm): Sql {
    return new Sql(orm.em.getKnex(), () => readPoolOf(orm));
  }

  /**
   * `hotRead` names a hot read: outside a transaction it runs on the read pool (`pg` directly, no knex; ADR
   * 080), inside one, or on an `Sql` without a read pool (the plain way), like any other statement. The name
   * is what `onReadPoolQuery` reports; the statement goes as plain text with its parameters (not prepared),
   * so it must not contain a literal `?` (placeholders become `$n`).
   */
  async rows<T>(query: string, params: readonly unknown[] = [], hotRead?: string): Promise<T[]> {
    if (hotRead && this.readPool) {
      const pool = this.readPool();
      reportReadPoolQuery(pool, query, hotRead);
      const result = await pool.query({ text: toPositional(query), values: [...params] });
      return result.rows as T[];
    }
    const result = (await this.runner.raw(query, params as never)) as unknown as { rows: T[] };
    return result.rows;
  }

  async first<T>(query: string, params: readonly unknown[] = [], hotRead?: string): Promise<T | undefined> {
    return (await this.rows<T>(query, params, hotRead))[0];
  }

  /**
   * Holds a transaction-scoped advisory lock on `key` until the transaction ends. Advisory locks are
   * database-wide, so keys start with the owning service's name (`task:<tenant>:<user>`).
   */
  async advisoryLock(key: string): Promise<void> {
    await this.runner.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [key]);
  }
}
