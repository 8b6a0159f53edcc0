// The SQL floor: raw `pg` queries on a scratch table, pgbench-style (fixed concurrency, each client
// issuing its next statement as soon as the last one answered), with no ORM, HTTP or JSON in between.
import { randomUUID } from 'node:crypto';
import pg from 'pg';

export interface Floor {
  per_s: number;
  p99_ms: number;
}

/** Runs `statement(client)` from `concurrency` pooled clients for `seconds`; returns { per_s, p99_ms }. */
async function loop(
  pool: pg.Pool,
  seconds: number,
  concurrency: number,
  statement: (client: pg.PoolClient) => Promise<unknown>,
): Promise<Floor> {
  const latencies: number[] = [];
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      const conn = await pool.connect();
      try {
        while (Date.now() < end) {
          const started = performance.now();
          await statement(conn);
          latencies.push(performance.now() - started);
        }
      } finally {
        conn.release();
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return {
    per_s: Math.round(latencies.length / seconds),
    p99_ms: Math.round(latencies[Math.floor(latencies.length * 0.99)] ?? 0),
  };
}

/**
 * Two floors on database `url`: a primary-key read of one row (the floor of GET /tasks/{id}) and a transaction
 * inserting one row and one outbox row (the floor of POST /tasks, which needs at least that).
 */
export async function sqlFloors(
  url: string,
  { seconds, concurrency }: { seconds: number; concurrency: number },
): Promise<{ read: Floor; write: Floor }> {
  const pool = new pg.Pool({ connectionString: url, max: concurrency });
  try {
    await pool.query(
      'CREATE TABLE floor_item (id uuid PRIMARY KEY, tenant_id uuid NOT NULL, title text NOT NULL, ' +
        'created_at timestamptz NOT NULL DEFAULT now())',
    );
    await pool.query('CREATE TABLE floor_outbox (id bigserial PRIMARY KEY, payload jsonb NOT NULL)');
    const tenant = randomUUID();
    const ids = Array.from({ length: 1000 }, () => randomUUID());
    await pool.query('INSERT INTO floor_item (id, tenant_id, title) SELECT unnest($1::uuid[]), $2, $3', [
      ids,
      tenant,
      'floor',
    ]);
    let i = 0;
    const read = await loop(pool, seconds, concurrency, (c) =>
      c.query({ name: 'floor-read', text: 'SELECT * FROM floor_item WHERE id = $1', values: [ids[i++ % 1000]] }),
    );
    const write = await loop(pool, seconds, concurrency, async (c) => {
      const id = randomUUID();
      await c.query('BEGIN');
      await c.query({
        name: 'floor-insert',
        text: 'INSERT INTO floor_item (id, tenant_id, title) VALUES ($1, $2, $3)',
        values: [id, tenant, 'floor write'],
      });
      await c.query({
        name: 'floor-outbox',
        text: 'INSERT INTO floor_outbox (payload) VALUES ($1)',
        values: [JSON.stringify({ id })],
      });
      await c.query('COMMIT');
    });
    return { read, write };
  } finally {
    await pool.end();
  }
}
