import { makeEvent, schedulerEvents } from '@routinely/events';
import { ManualClock } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, publishHandled, startHarness } from './harness.js';

const clock = new ManualClock('2026-11-21T08:00:00.000Z');
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(() => h?.close());

describe("the scheduler's calendar-conflict bell", () => {
  it('puts one schedule.conflict notification naming the moved task and where it went, even when the event comes twice', async () => {
    const user = h.tokens.user();
    const taskId = uuidv7();
    const event = makeEvent(
      schedulerEvents.scheduleConflicted,
      { tenantId: user.tenantId, userId: user.userId, at: clock.now() },
      {
        user_id: user.userId,
        tenant_id: user.tenantId,
        event: { id: uuidv7(), title: 'Dentist', start: '2026-11-23T09:30:00.000Z', end: '2026-11-23T10:30:00.000Z' },
        moved: [
          {
            task_id: taskId,
            title: 'write report',
            decision_id: uuidv7(),
            from_start: '2026-11-23T09:00:00.000Z',
            from_end: '2026-11-23T10:00:00.000Z',
            to_start: '2026-11-23T10:30:00.000Z',
            to_end: '2026-11-23T11:30:00.000Z',
          },
        ],
        unscheduled: [],
      },
    );
    await publishHandled(h.transport, event);
    await publishHandled(h.transport, { ...event });
    const res = await h.app.inject({ url: '/api/v1/service/notifications', headers: await h.tokens.auth(user) });
    expect(res.statusCode).toBe(200);
    const { items } = res.json();
    expect(items).toEqual([
      expect.objectContaining({
        id: event.id,
        kind: 'schedule.conflict',
        title: '"write report" was moved',
        read: false,
        data: expect.objectContaining({ moved: [expect.objectContaining({ task_id: taskId })] }),
      }),
    ]);
    expect(items[0].body).toBe(
      'Your calendar event "Dentist" (2026-11-23 09:30 UTC - 2026-11-23 10:30 UTC) overlapped scheduled work. "write report" moved to 2026-11-23 10:30 UTC - 2026-11-23 11:30 UTC.',
    );
  });

  it('says when a task could not be kept', async () => {
    const user = h.tokens.user();
    const event = makeEvent(
      schedulerEvents.scheduleConflicted,
      { tenantId: user.tenantId, userId: user.userId, at: clock.now() },
      {
        user_id: user.userId,
        tenant_id: user.tenantId,
        event: { id: uuidv7(), title: 'Standup', start: '2026-11-23T09:00:00.000Z', end: '2026-11-23T09:30:00.000Z' },
        moved: [],
        unscheduled: [
          {
            task_id: uuidv7(),
            title: 'urgent',
            reason: 'no_slot_before_deadline',
            from_start: '2026-11-23T09:00:00.000Z',
            from_end: '2026-11-23T10:00:00.000Z',
          },
        ],
      },
    );
    await publishHandled(h.transport, event);
    const res = await h.app.inject({ url: '/api/v1/service/notifications', headers: await h.tokens.auth(user) });
    const [item] = res.json().items;
    expect(item).toMatchObject({ kind: 'schedule.conflict', title: '"urgent" could not be kept' });
    expect(item.body).toContain('"urgent" could not be kept and is now unscheduled.');
  });
});
