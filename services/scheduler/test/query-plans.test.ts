// Scale check: the hot queries of a run's passes walk indexes once the run tables are large. It asserts plans,
// never times: a plan is what stays true on any machine.
import { type Orm, openOrm, Sql } from '@routinely/db';
import { createTestDatabase, indexesUsed, planOf } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unappliedDecisions } from '../src/db/runs-sql.js';
import { dbConfig } from '../src/index.js';

describe('run queries with 100,000 decisions, never analyzed', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let orm: Orm;
  const runId = '00000000-0000-4000-8000-000000000001';

  beforeAll(async () => {
    db = await createTestDatabase();
    orm = await openOrm(db.url, dbConfig);
    // Never analyzed while the test runs: the planner knows the table's size, not its shape, as during a fill.
    await Sql.of(orm).run('alter table schedule_decisions set (autovacuum_enabled = false)');
    // 2,000 runs of 50 decisions each (a routine fill's runs), one of them the run under test; every decision
    // applied but the first run's, none superseded.
    await Sql.of(orm).run(
      `insert into schedule_decisions (id, tenant_id, user_id, run_id, task_id, chosen_slot_start, chosen_slot_end,
         rationale, provider, model, source, supersedes_id, dry_run, applied, warnings, created_by, created_at)
       select gen_random_uuid(), 't', gen_random_uuid(),
         case when n / 50 = 0 then ?::uuid else md5('run' || (n / 50))::uuid end, gen_random_uuid(), now(),
         now() + interval '15 minutes', '', 'builtin', 'builtin', 'solver', null, false, n / 50 > 0, '[]'::jsonb,
         gen_random_uuid(), now()
       from generate_series(0, 99999) as n`,
      [runId],
    );
  }, 120_000);

  afterAll(async () => {
    await orm?.close(true);
    await db?.drop();
  });

  it("reads a run's unapplied decisions through the run index, each checked for a successor by one probe", async () => {
    const nodes = await planOf(orm, (sql) => unappliedDecisions(sql, runId));
    expect(nodes.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
    expect(indexesUsed(nodes)).toEqual(
      expect.arrayContaining(['schedule_decisions_run_idx', 'schedule_decisions_supersedes_idx']),
    );
    expect(await unappliedDecisions(Sql.of(orm), runId)).toHaveLength(50);
  });
});
