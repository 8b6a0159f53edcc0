import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTask, type RunHarness, startRunHarness } from './run-harness.js';
import { knowUser, ok } from './scheduler-harness.js';

let h: RunHarness;
beforeAll(async () => {
  h = await startRunHarness();
});
afterAll(() => h?.close());

describe('a settings timezone change, read back by the task service at once', () => {
  it('answers PATCH /settings/me once the task service applied it: a routine created right after is in the new zone', async () => {
    h.clock.set('2026-11-23T06:00:00Z');
    for (const timezone of ['Pacific/Kiritimati', 'America/Los_Angeles']) {
      const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
      await ok(await h.scheduler.call(user, 'PATCH', '/service/settings/me', { timezone }));
      // No wait here: the next request is the client's very next one.
      const series = await createTask(h, user, {
        title: 'Morning run',
        duration_min: 30,
        recurrence: { rule: 'FREQ=DAILY', window: { start: '07:00', end: '08:00' }, horizon_days: 2 },
      });
      const res = await h.task.call(
        user,
        'GET',
        `/service/tasks/${series.id}/occurrences?from=2026-11-20&to=2026-11-30`,
      );
      expect(res.statusCode, res.body).toBe(200);
      const first = (res.json().items as { occurrence_date: string; earliest_start_at: string }[])[0];
      // 07:00 local: 17:00Z the day before in Kiritimati (UTC+14), 15:00Z in Los Angeles (UTC-8).
      const expected =
        timezone === 'Pacific/Kiritimati'
          ? { occurrence_date: '2026-11-23', earliest_start_at: '2026-11-22T17:00:00.000Z' }
          : { occurrence_date: '2026-11-22', earliest_start_at: '2026-11-22T15:00:00.000Z' };
      expect(first, timezone).toMatchObject(expected);
    }
  });
});
