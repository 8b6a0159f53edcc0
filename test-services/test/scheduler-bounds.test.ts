import { Sql } from '@routinely/db';
import type { TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTask, type RunHarness, startRunHarness } from './run-harness.js';
import { knowUser, ok } from './scheduler-harness.js';

let h: RunHarness;

beforeAll(async () => {
  h = await startRunHarness();
});
afterAll(async () => {
  await h?.close();
});

async function placedDecision(user: TestUser) {
  const task = await createTask(h, user, { title: 'to override', duration_min: 30 });
  const run = await ok(await h.scheduler.call(user, 'POST', '/service/schedule', { task_ids: [task.id] }));
  return run.decisions[0] as { id: string; task_id: string };
}

// The manual clock starts on Saturday 2026-11-21 08:00 UTC.
describe('bounded work per request', () => {
  it('an override slot is at most 31 days long (422 naming chosen_slot_end), checked before any work', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const decision = await placedDecision(user);
    for (const [path, extra] of [
      [`/service/schedule/decisions/${decision.id}/override`, {}],
      ['/service/schedule/override', { decision_id: decision.id }],
    ] as const) {
      for (const [start, end] of [
        ['2026-12-01T09:00:00Z', '2027-01-01T09:00:01Z'],
        ['1000-01-01T00:00:00Z', '9999-12-31T00:00:00Z'],
      ]) {
        const res = await h.scheduler.call(user, 'POST', path, {
          ...extra,
          chosen_slot_start: start,
          chosen_slot_end: end,
        });
        expect(res.statusCode, res.body).toBe(422);
        expect(res.json().errors[0].loc).toEqual(['body', 'chosen_slot_end']);
      }
    }
    // Exactly 31 days is allowed (the user chose it; it is outside working hours, so it warns).
    const longest = await ok(
      await h.scheduler.call(user, 'POST', `/service/schedule/decisions/${decision.id}/override`, {
        chosen_slot_start: '2026-12-01T09:00:00Z',
        chosen_slot_end: '2027-01-01T09:00:00Z',
      }),
      201,
    );
    expect(longest.warnings).toContain('outside_working_hours');
  });

  it('a reflow of a root whose slot spans more than 90 days is refused before any computation', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const root = await createTask(h, user, { title: 'long root', duration_min: 30 });
    await createTask(h, user, { title: 'child', duration_min: 30, parent_task_id: root.id });
    // The task service refuses a manual slot over 31 days now; a row written before that rule still has one.
    const refused = await h.task.call(user, 'PATCH', `/service/tasks/${root.id}`, {
      chosen_slot_start: '2026-11-23T09:00:00Z',
      chosen_slot_end: '2036-11-23T09:00:00Z',
    });
    expect(refused.statusCode, refused.body).toBe(422);
    await Sql.of(h.task.orm).run(
      "update tasks set chosen_slot_start = ?, chosen_slot_end = ?, status = 'scheduled' where id = ?",
      [new Date('2026-11-23T09:00:00Z'), new Date('2036-11-23T09:00:00Z'), root.id],
    );
    const res = await h.scheduler.call(user, 'POST', '/service/schedule/reflow', { root_task_id: root.id });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().errors[0].loc).toEqual(['body', 'root_task_id']);
    // Nothing was started.
    expect((await h.scheduler.call(user, 'GET', '/service/schedule/runs/latest')).statusCode).toBe(404);
  });

  it('GET /llm/usage/monthly refuses a month PostgreSQL has no calendar for, and lists the first one there is', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const zero = await h.scheduler.call(user, 'GET', '/service/llm/usage/monthly?month=0000-01');
    expect(zero.statusCode, zero.body).toBe(422);
    expect(zero.json().errors[0].loc.at(-1)).toBe('month');
    const first = await ok(await h.scheduler.call(user, 'GET', '/service/llm/usage/monthly?month=0001-02'));
    expect(first.days).toHaveLength(28);
    expect(first.days[0].date).toBe('0001-02-01');
    const leap = await ok(await h.scheduler.call(user, 'GET', '/service/llm/usage/monthly?month=0004-02'));
    expect(leap.days).toHaveLength(29);
  });

  it("one user's heaviest legal requests leave another user's requests answered", async () => {
    const heavy = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const other = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const decision = await placedDecision(heavy);
    const tasks = await Promise.all(
      Array.from({ length: 10 }, (_, i) => createTask(h, heavy, { title: `heavy ${i}`, duration_min: 480 })),
    );
    const mine = await createTask(h, other, { title: 'light', duration_min: 30 });
    // A 90-day window of ten 8-hour tasks and a 31-day override, several at once, beside the other user's calls.
    const heavyCalls = [
      ...Array.from({ length: 4 }, () =>
        h.scheduler.call(heavy, 'POST', '/service/schedule', {
          task_ids: tasks.map((t) => t.id),
          window_start: '2026-11-23T00:00:00Z',
          window_end: '2027-02-21T00:00:00Z',
          dry_run: true,
        }),
      ),
      h.scheduler.call(heavy, 'POST', `/service/schedule/decisions/${decision.id}/override`, {
        chosen_slot_start: '2026-12-01T00:00:00Z',
        chosen_slot_end: '2027-01-01T00:00:00Z',
      }),
    ];
    const otherCalls = [
      h.scheduler.call(other, 'GET', '/service/settings/me'),
      h.scheduler.call(other, 'POST', '/service/schedule', { task_ids: [mine.id] }),
      h.scheduler.call(other, 'GET', '/service/llm/usage/monthly'),
    ];
    const [heavyAnswers, otherAnswers] = await Promise.all([Promise.all(heavyCalls), Promise.all(otherCalls)]);
    for (const res of heavyAnswers) expect([200, 201], res.body).toContain(res.statusCode);
    for (const res of otherAnswers) expect(res.statusCode, res.body).toBe(200);
  });
});
