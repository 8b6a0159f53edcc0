import { connectionPoolOf, type Orm, openOrm, Sql } from '@routinely/db';
import { ManualClock, renderMetrics } from '@routinely/platform';
import { createTestDatabase, metricSample } from '@routinely/testkit';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { observeServiceDatabase } from '../src/service-metrics.js';

describe("a service's database gauges", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let orm: Orm;
  const held: pg.ClientBase[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    orm = await openOrm(db.url, { schema: 'probe', entities: [], migrations: [] }, { migrate: false });
    await Sql.of(orm).run(
      `create table outbox (id uuid primary key, events int not null, created_at timestamptz not null,
         published_at timestamptz)`,
    );
    await Sql.of(orm).run(`insert into outbox values ('01a22b49-92fe-7130-8aad-2b0a0124eef9', 3, now(), null)`);
  });

  afterAll(async () => {
    const { client } = orm.em.getKnex();
    for (const connection of held) await client.releaseConnection(connection);
    await orm.close();
    await db.drop();
  });

  it("report the pool as the scrape found it, not the scrape's own backlog read waiting for a connection", async () => {
    // Every open connection busy: the backlog read of the scrape has to open one, and waits meanwhile.
    const pool = connectionPoolOf(orm);
    const { client } = orm.em.getKnex();
    while ((pool?.numFree() ?? 0) > 0) held.push(await client.acquireConnection());
    const stop = observeServiceDatabase('probe', orm, new ManualClock());
    try {
      const text = (await renderMetrics()).body;
      expect(metricSample(text, 'routinely_outbox_pending_events{service="probe"}')).toBe(3);
      expect(metricSample(text, 'routinely_db_pool_pending_acquires{service="probe"}')).toBe(0);
      expect(metricSample(text, 'routinely_db_pool_connections{service="probe",state="used"}')).toBe(held.length);
      expect(metricSample(text, 'routinely_db_pool_connections{service="probe",state="free"}')).toBe(0);
    } finally {
      stop();
    }
  });
});
