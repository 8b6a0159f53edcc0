import { Sql } from '@routinely/db';
import { gate } from '@routinely/testkit';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRun, insertRun, joinWaitingRoutineRun, type RunRow } from '../src/db/runs-sql.js';
import { type Harness, startHarness } from './harness.js';

// A routine's placement request joins the owner's routine run that still waits in the queue (ADR 055): the
// first fill of three routines is one run, not three, and a run a worker has taken is never changed.

let h: Harness;
let db: Sql;
beforeAll(async () => {
  h = await startHarness({ SCHEDULER_RUN_POLL_MS: '3600000' });
  db = Sql.of(h.orm);
});
afterAll(() => h?.close());

const DAY_MS = 86_400_000;
const ids = (n: number) => Array.from({ length: n }, () => uuidv7());

async function waitingRun(owner: { tenantId: string; userId: string }, changes: Partial<RunRow> = {}) {
  const now = h.clock.now();
  const taskIds = ids(60);
  const run = {
    id: uuidv7(),
    tenant_id: owner.tenantId,
    user_id: owner.userId,
    status: 'queued' as const,
    kind: 'routine' as const,
    root_task_id: null,
    provider: 'builtin',
    model: 'builtin',
    task_ids: taskIds,
    window_start: now,
    window_end: new Date(now.getTime() + 14 * DAY_MS),
    dry_run: false,
    progress_total: taskIds.length,
    attempts: 0,
    // A lease ahead keeps the service's own worker from taking the run while the test looks at it.
    lease_until: new Date(now.getTime() + DAY_MS),
    created_by: owner.userId,
    created_at: now,
    started_at: null,
    ...changes,
  };
  await insertRun(db, run);
  return run;
}

const join = (owner: { tenantId: string; userId: string }, taskIds: string[], days = 14) =>
  joinWaitingRoutineRun(db, owner, taskIds, new Date(h.clock.now().getTime() + days * DAY_MS), 200);

describe('a routine request joins the routine run waiting in the queue', () => {
  it('adds its tasks once and widens the window to what they need', async () => {
    const owner = h.tokens.user();
    const run = await waitingRun(owner);
    const more = ids(60);
    expect(await join(owner, more, 30)).toBe(true);
    // The same request again (a copy republished) adds nothing.
    expect(await join(owner, more, 30)).toBe(true);
    const joined = (await findRun(db, run.id)) as RunRow;
    expect(joined.task_ids).toEqual([...run.task_ids, ...more]);
    expect(joined.progress_total).toBe(120);
    expect(joined.window_end).toEqual(new Date(h.clock.now().getTime() + 30 * DAY_MS));
    expect(await join(owner, ids(60), 7)).toBe(true);
    expect(((await findRun(db, run.id)) as RunRow).window_end).toEqual(joined.window_end);
  });

  it('leaves alone a run past the size, a run taken, a run of another kind or owner, and a run being claimed', async () => {
    const owner = h.tokens.user();
    const full = await waitingRun(owner, { task_ids: ids(180), progress_total: 180 });
    expect(await join(owner, ids(60))).toBe(false);
    await db.run('delete from schedule_runs where id = ?', [full.id]);
    const cases: Partial<RunRow>[] = [
      { status: 'running', attempts: 1 },
      { attempts: 1 }, // taken before and given back after its lease: it may have written decisions
      { kind: 'schedule' },
    ];
    for (const changes of cases) {
      const run = await waitingRun(owner, changes);
      expect(await join(owner, ids(4)), JSON.stringify(changes)).toBe(false);
      expect(((await findRun(db, run.id)) as RunRow).task_ids).toEqual(run.task_ids);
      await db.run('delete from schedule_runs where id = ?', [run.id]);
    }
    await waitingRun(h.tokens.user());
    expect(await join(owner, ids(4))).toBe(false);

    // A worker's claim holds the run's row lock until it marks the run running: the request does not wait for it.
    const claimed = await waitingRun(owner);
    const held = gate();
    const locked = gate();
    const claim = db.transaction(async (sql) => {
      await sql.run('select id from schedule_runs where id = ? for update', [claimed.id]);
      locked.open();
      await held.passed;
    });
    await locked.passed;
    expect(await join(owner, ids(4))).toBe(false);
    held.open();
    await claim;
  });
});
