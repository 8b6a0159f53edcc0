import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { deadLettered } from '../src/dead-letters.js';
import { apiFor, startLocalAllInOne, startTarget, type Target } from '../src/harness.js';
import { registerUser } from '../src/users.js';

/**
 * Every event consumer applies its events in both topologies, the six processes over JetStream (the
 * shared target) and the all-in-one, where every service shares one process and one PostgreSQL (where the task
 * service's consumer once ran on the scheduler's connection). Each test causes its events through the public
 * API, checks the consumer's visible effect and that the consumer stored no dead letter. Each topology starts
 * once for the file. The calendar consumers need a provider's fake at a setting of their own: their test is
 * unified-calendar.e2e.test.ts, in both topologies too, and so is delivery.quota-notices' (a soft-cap breach
 * needs the model fake's spend, whose address is such a setting).
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

const WAIT = { timeout: 30_000, interval: 200 };

const RECURRING = {
  duration_min: 30,
  recurrence: { rule: 'FREQ=DAILY', window: { start: '07:00', end: '08:00' }, horizon_days: 3 },
};

describe.each(TOPOLOGIES)('event consumers in %s', (_name, start) => {
  let target: Target;
  beforeAll(async () => {
    target = await start();
  });
  afterAll(() => target?.close());

  it('a settings timezone change moves routines to the new zone, a routine created right after is in it (task.user-timezones, task.settings-timezones, task.scheduler-figures, scheduler.users, scheduler.settings-acknowledgements, scheduler.routine-runs)', async () => {
    const admin = await registerUser(target);
    const api = apiFor(target, admin.token);
    const created = await api.POST('/api/v1/service/tasks', { body: { title: 'Morning run', ...RECURRING } });
    expect(created.response.status, JSON.stringify(created.error)).toBe(201);
    const before = String(created.data?.id);

    const patched = await api.PATCH('/api/v1/service/settings/me', { body: { timezone: 'Pacific/Kiritimati' } });
    expect(patched.response.status, JSON.stringify(patched.error)).toBe(200);
    // The very next request: a routine created now is in the new zone (07:00 in UTC+14 is 17:00Z).
    const after = await api.POST('/api/v1/service/tasks', { body: { title: 'Evening read', ...RECURRING } });
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
    await vi.waitFor(async () => {
      const moved = (await windowsOf(before)).filter((o) => fresh.some((f) => f.date === o.date));
      expect(moved.length).toBeGreaterThan(0);
      for (const o of moved) expect(o.start, JSON.stringify(o)).toBe('17:00');
    }, WAIT);

    expect(
      await deadLettered(target, admin, [
        'task.user-timezones',
        'task.settings-timezones',
        'task.scheduler-figures',
        'scheduler.users',
        'scheduler.settings-acknowledgements',
        'scheduler.routine-runs',
      ]),
    ).toEqual([]);
  });

  it('a scheduled task gets its reminder, mailed to the address the user registered with (delivery.reminders, delivery.contacts)', async () => {
    const admin = await registerUser(target);
    const api = apiFor(target, admin.token);
    // Starts in a minute and two seconds: its one-minute reminder is due in two seconds.
    const start = new Date(Date.now() + 62_000);
    const task = await api.POST('/api/v1/service/tasks', {
      body: { title: 'Take the pills', reminder_channels: ['email', 'inapp'], reminder_offset_min: 1, duration_min: 5 },
    });
    expect(task.response.status, JSON.stringify(task.error)).toBe(201);
    const taskId = String(task.data?.id);
    const scheduled = await api.PATCH('/api/v1/service/tasks/{task_id}', {
      params: { path: { task_id: taskId } },
      body: {
        chosen_slot_start: start.toISOString(),
        chosen_slot_end: new Date(start.getTime() + 300_000).toISOString(),
      },
    });
    expect(scheduled.response.status, JSON.stringify(scheduled.error)).toBe(200);

    // The reminder exists once delivery.reminders applied the task events; the email is sent only to a
    // known address, which delivery.contacts took from auth's user.registered (else "no email address known").
    await vi.waitFor(async () => {
      const sent = await api.GET('/api/v1/service/reminders/deliveries', {
        params: { query: { channel: 'email' } },
      });
      expect(sent.response.status).toBe(200);
      expect(sent.data?.items.map((d) => [d.status, d.last_error])).toEqual([['sent', null]]);
      const bell = await api.GET('/api/v1/service/notifications');
      expect(bell.data?.items.map((n) => n.kind)).toEqual(['reminder']);
    }, WAIT);

    expect(await deadLettered(target, admin, ['delivery.reminders', 'delivery.contacts'])).toEqual([]);
  });

  it('an import with auto_schedule has its tasks placed (scheduler.import-runs)', async () => {
    const admin = await registerUser(target);
    const api = apiFor(target, admin.token);
    const earliest = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const imported = await api.POST('/api/v1/service/tasks/bulk-import', {
      body: {
        rows: [
          { title: 'Sort the receipts', duration_min: 30, earliest_start_at: earliest },
          { title: 'File the taxes', duration_min: 45, earliest_start_at: earliest },
        ],
        commit: true,
        auto_schedule: true,
      },
    });
    expect(imported.response.status, JSON.stringify(imported.error)).toBe(200);
    const ids = imported.data?.created_ids ?? [];
    expect(ids).toHaveLength(2);
    // Nobody called the scheduler: the import's task.import.schedule_requested queued the run that places them.
    await vi.waitFor(async () => {
      for (const id of ids) {
        const read = await api.GET('/api/v1/service/tasks/{task_id}', { params: { path: { task_id: id } } });
        expect(read.data).toMatchObject({ status: 'scheduled' });
      }
    }, WAIT);

    expect(await deadLettered(target, admin, ['scheduler.import-runs'])).toEqual([]);
  });
});
