import { Sql } from '@routinely/db';
import { gate } from '@routinely/testkit';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDueRun, insertRun, type RunRow } from '../src/db/runs-sql.js';
import { type Harness, startHarness } from './harness.js';

// Four lanes claiming at the same moment: the first claim locked all sixteen candidates, so the other three took
// nothing and sat out the worker's pass (one lane busy of four while hundreds of runs waited), or took another run
// of a user already being served.

let h: Harness;
beforeAll(async () => {
  // The service's own worker polls once an hour: the runs below are this test's to claim (but for its first pass).
  h = await startHarness({ SCHEDULER_RUN_POLL_MS: '3600000' });
});
afterAll(() => h?.close());

const LANES = 4;

async function queueRuns(userCount: number, runsEach: number) {
  const db = Sql.of(h.orm);
  const now = h.clock.now();
  for (let u = 0; u < userCount; u++) {
    const { tenantId, userId } = h.tokens.user();
    for (let r = 0; r < runsEach; r++) {
      await insertRun(db, {
        id: uuidv7(),
        tenant_id: tenantId,
        user_id: userId,
        status: 'queued',
        kind: 'schedule',
        root_task_id: null,
        provider: 'builtin',
        model: 'builtin',
        task_ids: [uuidv7()],
        window_start: now,
        window_end: new Date(now.getTime() + 86_400_000),
        dry_run: false,
        progress_total: 1,
        attempts: 0,
        lease_until: null,
        created_by: userId,
        created_at: now,
        started_at: null,
      });
    }
  }
}

describe('claiming due runs', () => {
  it('lanes claiming at once each take a run, of a different user each', async () => {
    // Twelve users: the service's own worker may wake once at its start and lease a run of up to four of them.
    await queueRuns(12, 2);
    const db = Sql.of(h.orm);
    const claimed: (RunRow | undefined)[] = [];
    const held = gate();
    // Each claim keeps its transaction (its row locks) open until every lane has claimed, as lanes claiming
    // together do.
    const lane = () =>
      db.transaction(async (sql) => {
        claimed.push(await claimDueRun(sql, h.clock.now()));
        if (claimed.length === LANES) held.open();
        await held.passed;
      });
    await Promise.all(Array.from({ length: LANES }, lane));
    expect(claimed.filter((run) => run === undefined)).toEqual([]);
    expect(new Set(claimed.map((run) => run?.user_id)).size).toBe(LANES);
  });
});
