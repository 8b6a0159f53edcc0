import { EventEmitter } from 'node:events';
import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import type { z } from 'zod';
import type { Orm } from './orm.js';
import { readPoolOf, toPositional } from './read-pool.js';

type Knex = ReturnType<EntityManager['getKnex']>;
/**
 * A knex instance or transaction as far as `Sql` uses it: it opens transactions (savepoints when nested), and its
 * client hands out a connection of its pool (in a transaction, always the transaction's own) and takes it back.
 */
type Runner = Pick<Knex, 'transaction'> & {
  client: { acquireConnection(): Promise<pg.ClientBase>; releaseConnection(connection: pg.ClientBase): Promise<void> };
};

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
    /** Where `onStatement` listeners of the ORM hear of each statement. */
    private readonly statements: EventEmitter,
    /** Set outside transactions: where `rows` runs a named hot read (read-pool.ts, opened on first use). */
    private readonly readPool?: () => pg.Pool,
    /** Set inside a transaction: its connection, which runs the transaction's statements directly. */
    private readonly connection?: Pick<pg.ClientBase, 'query'>,
  ) {}

  /** The service's database handle: statements on its pinned pool, hot reads on its read pool. */
  static of(orm: Orm): Sql {
    return new Sql(orm.em.getKnex(), statementsOf(orm), () => readPoolOf(orm));
  }

  /**
   * Runs `work` in one transaction: its statements and the outbox rows it enqueues on the `sql` it receives
   * commit (or roll back) together. Called on an `Sql` that is already in a transaction, it is a savepoint.
   */
  transaction<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    return this.runner.transaction(async (trx) => {
      // Knex opens, commits and rolls back the transaction on its connection (a savepoint when nested); the
      // statements in between go to that connection as `pg` queries (see `execute`).
      const connection = this.connection ?? oneAtATime(await trx.client.acquireConnection());
      return work(new Sql(trx, this.statements, undefined, connection));
    });
  }

  /**
   * The rows of `query`, each parsed by `schema` (a row that does not fit throws, naming the column).
   * `hotRead` names a hot read: outside a transaction it runs on the read pool (ADR 080); inside one, or on an
   * `Sql` without a read pool, like any other statement. The name is what `onStatement` reports.
   */
  async rows<S extends z.ZodType>(
    schema: S,
    query: string,
    params: readonly unknown[] = [],
    hotRead?: string,
  ): Promise<z.output<S>[]> {
    const { rows } = await this.execute(query, params, hotRead);
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

  /**
   * Sends one statement as a `pg` query: a named hot read outside a transaction on the read pool, in a
   * transaction on its connection, else on a connection of the knex pool for this statement. It goes as plain
   * text with its parameters (not prepared), so it must not contain a literal `?` (placeholders become `$n`).
   */
  private async execute(
    query: string,
    params: readonly unknown[],
    hotRead?: string,
  ): Promise<Pick<pg.QueryResult, 'rows' | 'rowCount'>> {
    const statement = { text: toPositional(query), values: [...params] };
    if (hotRead && this.readPool) {
      this.report(query, hotRead, 'read-pool');
      return this.readPool().query(statement);
    }
    this.report(query, hotRead, this.connection ? 'transaction' : 'pool');
    if (this.connection) return this.connection.query(statement);
    const connection = await this.runner.client.acquireConnection();
    try {
      return await connection.query(statement);
    } finally {
      await this.runner.client.releaseConnection(connection);
    }
  }

  /**
   * Holds a transaction-scoped advisory lock on `key` until the transaction ends. Advisory locks are
   * database-wide, so keys start with the owning service's name (`task:<tenant>:<user>`).
   */
  async advisoryLock(key: string): Promise<void> {
    await this.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [key]);
  }

  /** Tells the `onStatement` listeners (none in production: then nothing is built). */
  private report(sql: string, name: string | undefined, on: Statement['on']): void {
    if (this.statements.listenerCount('statement') > 0) this.statements.emit('statement', { sql, name, on });
  }
}

/**
 * A transaction's connection that sends its statements one after another: work that runs statements of one
 * transaction concurrently (`Promise.all`) never has `pg` queue them on the client itself (deprecated there).
 */
function oneAtATime(connection: Pick<pg.ClientBase, 'query'>): Pick<pg.ClientBase, 'query'> {
  let last: Promise<unknown> = Promise.resolve();
  return {
    query: ((statement: pg.QueryConfig) => {
      const result = last.then(() => connection.query(statement));
      last = result.catch(() => {});
      return result;
    }) as pg.ClientBase['query'],
  };
}

/** A statement an `Sql` ran: its text (`?` placeholders), its hot-read name if any, and where it ran. */
export interface Statement {
  sql: string;
  name: string | undefined;
  on: 'read-pool' | 'pool' | 'transaction';
}

const statementEvents = new WeakMap<Orm, EventEmitter>();

function statementsOf(orm: Orm): EventEmitter {
  let events = statementEvents.get(orm);
  if (!events) {
    events = new EventEmitter();
    statementEvents.set(orm, events);
  }
  return events;
}

/** Calls `listener` for every statement an `Sql` of the ORM runs (tests count statements); returns the unsubscribe. */
export function onStatement(orm: Orm, listener: (statement: Statement) => void): () => void {
  const events = statementsOf(orm);
  events.on('statement', listener);
  return () => events.removeListener('statement', listener);
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
