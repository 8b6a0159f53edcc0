import { setTimeout as sleep } from 'node:timers/promises';
import { column, row, Sql } from '@routinely/db';
import type { ManualClock } from '@routinely/platform';
import { OUTBOX_EVENTS, type TestUser, waitFor } from '@routinely/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Routines } from '../src/domain/routines/routines.js';
import { TaskService } from '../src/domain/tasks.js';
import { anyRow, call, createTask, type Harness, startHarness } from './harness.js';

// A DELETE racing the fill of a routine (the fill of a recurrence PATCH, or the worker's) must win: once it has
// answered 204 nothing of the series is left open, placed or reminding. Each case runs many interleavings, the
// DELETE sent 0-100 ms after the fill starts (or once placing began), while a stand-in scheduler places every
// occurrence it sees.

let h: Harness;
let clock: ManualClock;

beforeAll(async () => {
  h = await startHarness({ ROUTINE_FILL_POLL_MS: '3600000' });
  clock = h.clock;
});
afterAll(() => h?.close());
beforeEach(() => clock.set('2026-10-28T12:00:00Z'));

const ROUNDS = 10;
const noKick = { kick: () => {} };
const jitter = (maxMs: number) => sleep(Math.floor(Math.random() * maxMs));

/** A routine's template: a root with `steps` steps (not yet recurring). */
async function template(user: TestUser, steps: number) {
  const root = await createTask(h, user, { title: 'Evening routine', duration_min: 15 });
  for (let i = 0; i < steps; i++) await createTask(h, user, { title: `step ${i}`, parent_task_id: root.id });
  return root.id as string;
}

/**
 * The scheduler's part in the race: places every occurrence root of the series it sees (a slot in its window),
 * until told to stop. A slot on a task deleted meanwhile is refused, as ApplySlots refuses it.
 */
function placer(user: TestUser, seriesId: string) {
  const tasks = new TaskService(Sql.of(h.orm), clock, noKick);
  let running = true;
  const done = (async () => {
    while (running) {
      const open = await Sql.of(h.orm).rows(
        row({ id: column.uuid, earliest_start_at: column.timestamp }),
        `select id, earliest_start_at from tasks
         where series_id = ? and occurrence_date is not null and status = 'pending' limit 20`,
        [seriesId],
      );
      const slots = open.map((occurrence) => {
        // Ahead of now: an occurrence whose slot has begun is history a DELETE keeps.
        const start = new Date(Math.max(occurrence.earliest_start_at.getTime(), clock.now().getTime()) + 3_600_000);
        return { taskId: occurrence.id, start, end: new Date(start.getTime() + 15 * 60_000) };
      });
      if (slots.length > 0) await tasks.applySlots(user, slots).catch(() => undefined);
      await sleep(5);
    }
  })();
  return async () => {
    running = false;
    await done;
  };
}

/**
 * When a round sends its DELETE: mostly 0-100 ms after the PATCH (inside its fill), every third round once the
 * scheduler placed a first occurrence (it goes on placing while the DELETE runs).
 */
function deleteMoment(round: number, seriesId: string) {
  if (round % 3 !== 2) return jitter(100);
  return waitFor(
    async () =>
      (
        await Sql.of(h.orm).rows(anyRow, "select 1 from tasks where series_id = ? and status = 'scheduled' limit 1", [
          seriesId,
        ])
      ).length > 0,
    { what: 'a first occurrence placed', intervalMs: 5 },
  );
}

/**
 * Everything left of a deleted series, whose owner has no other task: their rows, the series' fill, and the
 * tasks whose last event is not a delete (delivery keeps a task's reminder until a deleted event of a newer
 * version cancels it), with how many of the owner's tasks had events and how many were placed.
 */
async function leftOf(user: TestUser, seriesId: string) {
  const sql = Sql.of(h.orm);
  const rows = await sql.rows(
    row({ id: column.uuid, status: column.text }),
    'select id, status from tasks where user_id = ?',
    [user.userId],
  );
  const fills = await sql.rows(anyRow, 'select 1 from task_series_fills where series_id = ?', [seriesId]);
  const events = await sql.rows(
    row({ type: column.text, id: column.uuid, version: column.integer }),
    `select payload->>'type' as type, payload->'data'->'task'->>'id' as id,
       (payload->'data'->'task'->>'version')::int as version
     from ${OUTBOX_EVENTS} where payload->'data'->'task'->>'user_id' = ? order by row_id, n`,
    [user.userId],
  );
  const last = new Map<string, { type: string; version: number }>();
  for (const event of events) {
    const before = last.get(event.id);
    if (!before || event.version >= before.version) last.set(event.id, event);
  }
  const reminding = [...last].filter(([, event]) => event.type !== 'task.task.deleted').map(([id]) => id);
  const placed = new Set(events.filter((event) => event.type === 'task.task.scheduled').map((event) => event.id));
  return { rows, fills: fills.length, reminding, tasks: last.size, placed: placed.size };
}

describe('deleting a routine while its fill runs', () => {
  it.each([
    ['without steps', 0],
    ['with steps', 3],
  ])(
    'a DELETE right after a recurrence PATCH (daily, horizon 60, %s) leaves nothing of the series',
    async (_, steps) => {
      let occurrencesSeen = 0;
      let placedSeen = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const user = h.tokens.user();
        const id = await template(user, steps);
        const stopPlacing = placer(user, id);
        const [patched, deleted] = await Promise.all([
          call(h, user, 'PATCH', `/service/tasks/${id}`, { recurrence: { rule: 'FREQ=DAILY', horizon_days: 60 } }),
          deleteMoment(round, id).then(() => call(h, user, 'DELETE', `/service/tasks/${id}`)),
        ]);
        await stopPlacing();
        // Either order is fine: the PATCH first (200, then the DELETE takes its occurrences) or the DELETE first
        // (204, then the PATCH finds nothing: 404).
        expect([200, 404], patched.body).toContain(patched.statusCode);
        expect(deleted.statusCode, deleted.body).toBe(204);
        const left = await leftOf(user, id);
        expect(left.rows, `round ${round}`).toEqual([]);
        expect(left.fills).toBe(0);
        expect(left.reminding, `round ${round}`).toEqual([]);
        occurrencesSeen += left.tasks;
        placedSeen += left.placed;
      }
      // The race was real: fills wrote occurrences, and some were placed, before their DELETE took them.
      expect(occurrencesSeen).toBeGreaterThan(0);
      expect(placedSeen).toBeGreaterThan(0);
    },
  );

  it("a DELETE during the worker's fill leaves no open occurrence, no fill and no reminder behind", async () => {
    let filledBeforeDelete = 0;
    for (let round = 0; round < ROUNDS; round++) {
      clock.set('2026-10-28T12:00:00Z');
      const user = h.tokens.user();
      const id = await template(user, 3);
      await call(h, user, 'PATCH', `/service/tasks/${id}`, { recurrence: { rule: 'FREQ=DAILY', horizon_days: 60 } });
      // Fifty-nine days on, the worker has fifty-nine new dates to write, each with its steps.
      clock.set('2026-12-26T12:00:00Z');
      const worker = new Routines(Sql.of(h.orm), clock, noKick, new TaskService(Sql.of(h.orm), clock, noKick));
      const [filled, deleted] = await Promise.all([
        worker.fillDue(1_000),
        jitter(100).then(() => call(h, user, 'DELETE', `/service/tasks/${id}`)),
      ]);
      filledBeforeDelete += filled;
      expect(deleted.statusCode, deleted.body).toBe(204);
      const left = await leftOf(user, id);
      // History (occurrences dated before today, 26 December, with their steps) stays; nothing from today on.
      const history = await Sql.of(h.orm).rows(
        row({ id: column.uuid }),
        `select id from tasks where series_id = ? and occurrence_date < '2026-12-26'
         union all select c.id from tasks c join tasks r on c.parent_task_id = r.id
         where r.series_id = ? and r.occurrence_date < '2026-12-26'`,
        [id, id],
      );
      const kept = new Set(history.map((row) => row.id));
      expect(
        left.rows.filter((row) => !kept.has(row.id)),
        `round ${round}`,
      ).toEqual([]);
      expect(left.fills).toBe(0);
      expect(
        left.reminding.filter((task) => !kept.has(task)),
        `round ${round}`,
      ).toEqual([]);
    }
    expect(filledBeforeDelete).toBeGreaterThan(0);
  });
});
