import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { externalFor, publishHandled, scheduledTask, upserted } from './calendar-helpers.js';
import { call, createTask, type Harness, outboxEvents, startHarness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const SLOT = ['2026-11-24T09:00:00Z', '2026-11-24T10:00:00Z'] as const;
const eventTypes = async (taskId: string) =>
  (await outboxEvents(h)).filter((e) => e.taskId === taskId).map((e) => e.type);

describe('task-backed events', () => {
  it('shows a scheduled task as an editable, busy event; a task without a slot is not an event', async () => {
    const user = h.tokens.user();
    const task = await scheduledTask(h, user, 'Write report', ...SLOT);
    const res = await call(h, user, 'GET', `/service/calendar/events/${task.id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      id: task.id,
      source: 'task',
      title: 'Write report',
      start: '2026-11-24T09:00:00.000Z',
      end: '2026-11-24T10:00:00.000Z',
      all_day: false,
      status: 'scheduled',
      busy: true,
      task_id: task.id,
      integration_id: null,
      external_id: null,
      editable: true,
    });
    const pending = await createTask(h, user, { title: 'unscheduled' });
    for (const [method, suffix] of [
      ['GET', ''],
      ['POST', '/done'],
      ['POST', '/skip'],
      ['DELETE', ''],
    ] as const) {
      const miss = await call(h, user, method, `/service/calendar/events/${pending.id}${suffix}`);
      expect(miss.statusCode, `${method} ${suffix}`).toBe(404);
    }
  });

  it('done and skip change the task through the task store, with its events; the slot stays, no longer busy', async () => {
    const user = h.tokens.user();
    for (const [command, status, type] of [
      ['done', 'done', 'task.task.completed'],
      ['skip', 'skipped', 'task.task.skipped'],
    ] as const) {
      const task = await scheduledTask(h, user, command, ...SLOT);
      const res = await call(h, user, 'POST', `/service/calendar/events/${task.id}/${command}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ id: task.id, source: 'task', status, busy: false, editable: true });
      expect((await call(h, user, 'GET', `/service/tasks/${task.id}`)).json()).toMatchObject({
        status,
        chosen_slot_start: '2026-11-24T09:00:00.000Z',
      });
      expect((await eventTypes(task.id)).at(-1)).toBe(type);
    }
  });

  it('DELETE unschedules: 204, the task back to pending without a slot, an unscheduled event for the reminder', async () => {
    const user = h.tokens.user();
    const task = await scheduledTask(h, user, 'to unschedule', ...SLOT);
    const res = await call(h, user, 'DELETE', `/service/calendar/events/${task.id}`);
    expect(res.statusCode, res.body).toBe(204);
    expect((await call(h, user, 'GET', `/service/tasks/${task.id}`)).json()).toMatchObject({
      status: 'pending',
      chosen_slot_start: null,
      chosen_slot_end: null,
    });
    expect((await eventTypes(task.id)).at(-1)).toBe('task.task.unscheduled');
    expect((await call(h, user, 'DELETE', `/service/calendar/events/${task.id}`)).statusCode).toBe(404);

    // A done task in its slot goes back to pending too (completion undone).
    const done = await scheduledTask(h, user, 'done then unscheduled', ...SLOT);
    await call(h, user, 'POST', `/service/calendar/events/${done.id}/done`);
    expect((await call(h, user, 'DELETE', `/service/calendar/events/${done.id}`)).statusCode).toBe(204);
    expect((await call(h, user, 'GET', `/service/tasks/${done.id}`)).json()).toMatchObject({
      status: 'pending',
      completed_at: null,
    });
  });

  it('answers 409 event_not_editable on a provider event and changes nothing', async () => {
    const user = h.tokens.user();
    const external = externalFor({ title: 'Board meeting', provider: 'microsoft' });
    await publishHandled(h.transport, upserted(user, external));
    for (const [method, suffix] of [
      ['POST', '/done'],
      ['POST', '/skip'],
      ['DELETE', ''],
    ] as const) {
      const res = await call(h, user, method, `/service/calendar/events/${external.id}${suffix}`);
      expect(res.statusCode, `${method} ${suffix}`).toBe(409);
      expect(res.json()).toMatchObject({ code: 'event_not_editable', status: 409 });
    }
    expect((await call(h, user, 'GET', `/service/calendar/events/${external.id}`)).json()).toMatchObject({
      title: 'Board meeting',
      source: 'microsoft',
      status: 'confirmed',
      editable: false,
    });
  });

  it("answers 404 for another user's task-backed or provider event, even in the same tenant", async () => {
    const owner = h.tokens.user();
    const task = await scheduledTask(h, owner, 'mine', ...SLOT);
    const external = externalFor();
    await publishHandled(h.transport, upserted(owner, external));
    for (const stranger of [h.tokens.user({ tenantId: owner.tenantId }), h.tokens.user()]) {
      for (const id of [task.id, external.id]) {
        for (const [method, suffix] of [
          ['GET', ''],
          ['POST', '/done'],
          ['POST', '/skip'],
          ['DELETE', ''],
        ] as const) {
          const res = await call(h, stranger, method, `/service/calendar/events/${id}${suffix}`);
          expect(res.statusCode, `${method} ${suffix}`).toBe(404);
        }
      }
    }
    expect((await call(h, owner, 'GET', `/service/tasks/${task.id}`)).json().status).toBe('scheduled');
  });
});

describe('free-busy', () => {
  it('merges overlapping busy blocks of every source, naming each source; free, cancelled and done are not busy', async () => {
    const user = h.tokens.user();
    const task = await scheduledTask(h, user, 'Focus', '2026-11-24T09:00:00Z', '2026-11-24T10:00:00Z');
    const g1 = externalFor({ title: 'Standup run-over', start: '2026-11-24T09:30:00Z', end: '2026-11-24T11:00:00Z' });
    const freeOne = externalFor({
      provider: 'microsoft',
      title: 'Lunch (free)',
      busy: false,
      start: '2026-11-24T10:00:00Z',
      end: '2026-11-24T12:00:00Z',
    });
    const ms = externalFor({
      provider: 'microsoft',
      title: 'Review',
      start: '2026-11-24T13:00:00Z',
      end: '2026-11-24T14:00:00Z',
    });
    const cancelled = externalFor({
      title: 'Cancelled',
      status: 'cancelled',
      start: '2026-11-24T13:30:00Z',
      end: '2026-11-24T15:00:00Z',
    });
    const g2 = externalFor({ title: 'Workshop', start: '2026-11-24T16:00:00Z', end: '2026-11-24T17:00:00Z' });
    const g3 = externalFor({ title: 'Break-out', start: '2026-11-24T16:30:00Z', end: '2026-11-24T16:45:00Z' });
    for (const e of [g1, freeOne, ms, cancelled, g2, g3]) await publishHandled(h.transport, upserted(user, e));
    const touching = await scheduledTask(h, user, 'Calls', '2026-11-24T14:00:00Z', '2026-11-24T15:00:00Z');
    const done = await scheduledTask(h, user, 'Done early', '2026-11-24T18:00:00Z', '2026-11-24T19:00:00Z');
    await call(h, user, 'POST', `/service/calendar/events/${done.id}/done`);

    const res = await call(
      h,
      user,
      'GET',
      '/service/calendar/free-busy?from=2026-11-24T00:00:00Z&to=2026-11-25T00:00:00Z',
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      from: '2026-11-24T00:00:00.000Z',
      to: '2026-11-25T00:00:00.000Z',
      busy: [
        {
          start: '2026-11-24T09:00:00.000Z',
          end: '2026-11-24T11:00:00.000Z',
          source: 'mixed',
          sources: [
            { source: 'task', id: task.id, title: 'Focus' },
            { source: 'google', id: g1.id, title: 'Standup run-over' },
          ],
        },
        {
          start: '2026-11-24T13:00:00.000Z',
          end: '2026-11-24T14:00:00.000Z',
          source: 'microsoft',
          sources: [{ source: 'microsoft', id: ms.id, title: 'Review' }],
        },
        // Touching is not overlapping: the task right after the review is its own block.
        {
          start: '2026-11-24T14:00:00.000Z',
          end: '2026-11-24T15:00:00.000Z',
          source: 'task',
          sources: [{ source: 'task', id: touching.id, title: 'Calls' }],
        },
        {
          start: '2026-11-24T16:00:00.000Z',
          end: '2026-11-24T17:00:00.000Z',
          source: 'google',
          sources: [
            { source: 'google', id: g2.id, title: 'Workshop' },
            { source: 'google', id: g3.id, title: 'Break-out' },
          ],
        },
      ],
    });

    // Blocks are clipped to the window; another user of the tenant sees none of it.
    const clipped = await call(
      h,
      user,
      'GET',
      '/service/calendar/free-busy?from=2026-11-24T09:15:00Z&to=2026-11-24T09:45:00Z',
    );
    expect(clipped.json().busy).toMatchObject([
      { start: '2026-11-24T09:15:00.000Z', end: '2026-11-24T09:45:00.000Z', source: 'mixed' },
    ]);
    const colleague = h.tokens.user({ tenantId: user.tenantId });
    const theirs = await call(
      h,
      colleague,
      'GET',
      '/service/calendar/free-busy?from=2026-11-24T00:00:00Z&to=2026-11-25T00:00:00Z',
    );
    expect(theirs.json().busy).toEqual([]);
  });

  it('needs both bounds, an offset, an end after the start and at most 93 days (422 naming the field)', async () => {
    const user = h.tokens.user();
    const cases: [string, string][] = [
      ['to=2026-11-25T00:00:00Z', 'from'],
      ['from=2026-11-24T00:00:00Z', 'to'],
      ['from=2026-11-24T00:00:00&to=2026-11-25T00:00:00Z', 'from'],
      ['from=2026-11-24T00:00:00Z&to=2026-11-23T00:00:00Z', 'to'],
      ['from=2026-01-01T00:00:00Z&to=2026-04-04T00:00:01Z', 'to'],
    ];
    for (const [query, field] of cases) {
      const res = await call(h, user, 'GET', `/service/calendar/free-busy?${query}`);
      expect(res.statusCode, query).toBe(422);
      expect(res.json().errors[0].loc, query).toEqual(['query', field]);
    }
    const ok = await call(
      h,
      user,
      'GET',
      '/service/calendar/free-busy?from=2026-01-01T00:00:00Z&to=2026-04-04T00:00:00Z',
    );
    expect(ok.statusCode).toBe(200);
  });
});
