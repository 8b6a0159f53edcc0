import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiFor, startLocalAllInOne, startTarget, type Target } from '../src/harness.js';
import { registerUser } from '../src/users.js';

/**
 * Issue 37: a settings timezone change reaches the task service and its routines, and no consumer on the way
 * dead-letters, in both topologies: the six processes over JetStream (the shared target) and the all-in-one,
 * where every service shares one process and one PostgreSQL (where the task service's consumer once ran on
 * the scheduler's connection).
 */
const TOPOLOGIES: [string, () => Promise<Target>][] = [
  ['the target (six processes over JetStream, or E2E_BASE_URL)', () => startTarget()],
  [
    'the all-in-one',
    async () => {
      const local = await startLocalAllInOne();
      return { baseUrl: local.running.url, close: local.close };
    },
  ],
];

/** The consumers a timezone change and a routine pass through: none of them may have dead letters. */
const CONSUMERS = [
  'task.user-timezones',
  'task.settings-timezones',
  'task.scheduler-figures',
  'scheduler.users',
  'scheduler.settings-acknowledgements',
  'scheduler.routine-runs',
];

describe.each(TOPOLOGIES)('a settings timezone change in %s', (_name, start) => {
  let target: Target;
  beforeAll(async () => {
    target = await start();
  });
  afterAll(() => target?.close());

  it('moves routines to the new zone, a routine created right after is in it, and no consumer dead-letters', async () => {
    const admin = await registerUser(target);
    const api = apiFor(target, admin.token);
    const created = await api.POST('/api/v1/service/tasks', {
      body: {
        title: 'Morning run',
        duration_min: 30,
        recurrence: { rule: 'FREQ=DAILY', window: { start: '07:00', end: '08:00' }, horizon_days: 3 },
      },
    });
    expect(created.response.status, JSON.stringify(created.error)).toBe(201);
    const before = String(created.data?.id);

    const patched = await api.PATCH('/api/v1/service/settings/me', { body: { timezone: 'Pacific/Kiritimati' } });
    expect(patched.response.status, JSON.stringify(patched.error)).toBe(200);
    // The very next request: a routine created now is in the new zone (07:00 in UTC+14 is 17:00Z).
    const after = await api.POST('/api/v1/service/tasks', {
      body: {
        title: 'Evening read',
        duration_min: 30,
        recurrence: { rule: 'FREQ=DAILY', window: { start: '07:00', end: '08:00' }, horizon_days: 3 },
      },
    });
    expect(after.response.status, JSON.stringify(after.error)).toBe(201);
    const windowsOf = async (id: string) => {
      const res = await api.GET('/api/v1/service/tasks/{task_id}/occurrences', { params: { path: { task_id: id } } });
      expect(res.response.status).toBe(200);
      return (res.data?.items ?? []).map((o) => ({
        date: o.occurrence_date,
        start: new Date(String(o.earliest_start_at)).toISOString().slice(11, 16),
        status: o.status,
      }));
    };
    const fresh = await windowsOf(String(after.data?.id));
    expect(fresh.length).toBeGreaterThan(0);
    for (const o of fresh) expect(o.start, JSON.stringify(o)).toBe('17:00');
    // The routine made before the change follows it: its open occurrences dated today or later (there) too.
    await vi.waitFor(
      async () => {
        const moved = (await windowsOf(before)).filter((o) => fresh.some((f) => f.date === o.date));
        expect(moved.length).toBeGreaterThan(0);
        for (const o of moved) expect(o.start, JSON.stringify(o)).toBe('17:00');
      },
      { timeout: 15_000, interval: 250 },
    );

    const health = await api.GET('/api/v1/service/admin/health');
    expect(health.response.status).toBe(200);
    const consumers = health.data?.components.event_consumers as unknown as {
      dead_letters: { consumer: string }[];
    };
    expect(consumers.dead_letters.filter((l) => CONSUMERS.includes(l.consumer))).toEqual([]);
  });
});
