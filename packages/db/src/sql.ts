import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import type { z } from 'zod';
import type { Orm } from './orm.js';
import { readPoolOf, reportReadPoolQuery, toPositional } from './read-pool.js';

type Knex = ReturnType<EntityManager['getKnex']>;
/** A knex instance or transaction; both run raw SQL with real bind parameters (arrays included). */
type Runner = Pick<Knex, 'raw' | 'transaction'>;
/** A knex transaction as far as `transaction` uses it: its client hands out the transaction's own connection. */
interface TransactionRunner {
  client: { acquireConnection(): Promise<pg.ClientBase> };
}

/**
 * Raw SQL on a service's schema, and the service's one database handle: the composition root makes it with
 * `Sql.of(orm)` and hands it to whatever needs the database; `transaction` opens a transaction on it, and the
 * `Sql` it passes runs every statement of the work in that transaction (services keep their queries in
 * src/db/*-sql.ts). Bindings go to PostgreSQL as parameters (not inlined), so arrays bind as `?::uuid[]` and
 * values never need escaping. Rows are read through a schema (`row({...})` of `column` codecs), so a renamed
 * column fails where it is read, not later as `undefined`.
 */
export class Sql {
  private constructor(
    private readonly runner: Runner,
    /** Set outside transactions: where `rows` runs a named hot read (read-pool.ts, opened on first use). */
    private readonly readPool?: () => pg.Pool,
    /** Set inside a transaction: its connection, which runs the transaction's statements directly. */
    private readonly connection?: Pick<pg.ClientBase, 'query'>,
  ) {}

  /** The service's database handle: statements on its pinned pool, hot reads on its read pool. */
  static of(orm: Orm): Sql {
    return new Sql(orm.em.getKnex(), () => readPoolOf(orm));
  }

  /**
   * Runs `work` in one transaction: its statements and the outbox rows it enqueues on the `sql` it receives
   * commit (or roll back) together. Called on an `Sql` that is already in a transaction, it is a savepoint.
   */
  transaction<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    return this.runner.transaction(async (trx) => {
      // Knex opens, commits and rolls back the transaction on its connection (a savepoint when nested); the
      // statements in between go to that connection as `pg` queries. Knex rebuilt each one on the way (its
      // binding and positioning passes were 6% of a busy process's samples) and added nothing they use.
      const connection = await (trx as unknown as TransactionRunner).client.acquireConnection();
      return work(new Sql(trx, undefined, connection));
    });
  }

  /**
   * The rows of `query`, each parsed by `schema` (a row that does not fit throws, naming the column).
   * `hotRead` names a hot read: outside a transaction it runs on the read pool (`pg` directly, no knex; ADR
   * 080), inside one, or on an `Sql` without a read pool (the plain way), like any other statement. The name
   * is what `onReadPoolQuery` reports; the statement goes as plain text with its parameters (not prepared),
   * so it must not contain a literal `?` (placeholders become `$n`).
   */
  async rows<S extends z.ZodType>(
    schema: S,
    query: string,
    params: readonly unknown[] = [],
    hotRead?: string,
  ): Promise<z.output<S>[]> {
    const rows = await this.raw(query, params, hotRead);
    return rows.map((row) => parseRow(schema, row, hotRead) as z.output<S>);
  }

  /** The first row of `query` parsed by `schema`, or undefined when there is none. */
  async first<S extends z.ZodType>(
    schema: S,
    query: string,
    params: readonly unknown[] = [],
    hotRead?: string,
  ): Promise<z.output<S> | undefined> {
    return (await this.rows(schema, query, params, hotRead))[0];
  }

  /** Runs a statement whose rows nobody reads (insert, update, delete); answers how many rows it touched. */
  async run(query: string, params: readonly unknown[] = []): Promise<number> {
    return (await this.execute(query, params)).rowCount ?? 0;
  }

  private async raw(query: string, params: readonly unknown[], hotRead?: string): Promise<unknown[]> {
    if (hotRead && this.readPool) {
      const pool = this.readPool();
      reportReadPoolQuery(pool, query, hotRead);
      const result = await pool.query({ text: toPositional(query), values: [...params] });
      return result.rows;
    }
    return (await this.execute(query, params)).rows;
  }

  /** On the transaction's connection when in one, else through knex (its pool, its query events). */
  private async execute(query: string, params: readonly unknown[]): Promise<Pick<pg.QueryResult, 'rows' | 'rowCount'>> {
    if (this.connection) return this.connection.query({ text: toPositional(query), values: [...params] });
    return (await this.runner.raw(query, params as never)) as unknown as pg.QueryResult;
  }

  /**
   * Holds a transaction-scoped advisory lock on `key` until the transaction ends. Advisory locks are
   * database-wide, so keys start with the owning service's name (`task:<tenant>:<user>`).
   */
  async advisoryLock(key: string): Promise<void> {
    await this.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [key]);
  }
}

/** A row that does not fit its schema is a programming error: say which statement and column, never values. */
function parseRow(schema: z.ZodType, row: unknown, name: string | undefined): unknown {
  const parsed = schema.safeParse(row);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new Error(
    `a row${name ? ` of ${name}` : ''} does not fit its schema: ${issue?.path.join('.') || '(row)'}: ${issue?.message}`,
  );
}
