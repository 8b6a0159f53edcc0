import { column, row, Sql } from '@routinely/db';
import { integrationEvents, makeEvent, schedulerEvents } from '@routinely/events';
import type { TestUser } from '@routinely/testkit';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTask, getTask, type RunHarness, startRunHarness } from './run-harness.js';
import { knowUser, ok } from './scheduler-harness.js';

let h: RunHarness;
beforeAll(async () => {
  h = await startRunHarness();
});
afterAll(() => h?.close());

// The manual clock starts on Saturday 2026-11-21 08:00 UTC; default working hours are Mon-Fri 09:00-17:00 UTC.
const calendarEvent = (
  user: TestUser,
  fields: { title: string; start: string; end: string; version?: number; id?: string },
) =>
  makeEvent(
    integrationEvents.eventUpserted,
    { tenantId: user.tenantId, userId: user.userId, at: h.clock.now() },
    {
      event: {
        id: fields.id ?? uuidv7(),
        integration_id: uuidv7(),
        provider: 'google',
        external_id: `ext-${uuidv7()}`,
        title: fields.title,
        start: fields.start,
        end: fields.end,
        all_day: false,
        status: 'confirmed',
        busy: true,
        version: fields.version ?? 1,
        updated_at: h.clock.now().toISOString(),
      },
    },
  );

/** The task service's report that it applied (or declined) a calendar change, taken in by every consumer. */
const reported = async (sourceEventId: string) =>
  (
    await Sql.of(h.task.orm).rows(
      row({}),
      `select 1 from outbox where payload->>'type' = 'task.external_event.applied'
         and payload->'data'->>'source_event_id' = ? and published_at is not null`,
      [sourceEventId],
    )
  ).length;

/**
 * A calendar change as the integration service publishes it: the task service applies it to its copy and
 * reports that, and only the report reaches the scheduler. Resolves once the scheduler took the report in.
 */
const publish = async (event: ReturnType<typeof calendarEvent>) => {
  await h.transport.publish(event);
  await h.transport.whenHandled?.(event.id);
  await vi.waitFor(async () => expect(await reported(event.id)).toBe(1), { timeout: 10_000, interval: 25 });
};

const sql = () => Sql.of(h.scheduler.orm);
const checksDone = async (eventId: string) =>
  sql().rows(row({ status: column.text }), 'select status from schedule_conflict_checks where event_id = ?', [eventId]);
const conflictEvents = (userId: string) =>
  sql().rows(
    row({ payload: column.json(row({ data: schedulerEvents.scheduleConflicted.schema })) }),
    `select payload from outbox where payload->>'type' = 'scheduler.schedule.conflicted' and payload->>'user_id' = ?`,
    [userId],
  );
const decisionsOf = (taskId: string) =>
  sql().rows(
    row({
      id: column.uuid,
      source: column.text,
      rationale: column.text,
      supersedes_id: column.uuid.nullable(),
      applied: column.boolean,
    }),
    'select id, source, rationale, supersedes_id, applied from schedule_decisions where task_id = ? order by created_at, id',
    [taskId],
  );

describe('a calendar event overlapping a scheduled task', () => {
  it('moves the task clear of the event, with a solver decision naming it and one conflict event', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const task = await createTask(h, user, { title: 'write report', duration_min: 60 });
    const run = await ok(await h.scheduler.call(user, 'POST', '/service/schedule', { task_ids: [task.id] }));
    expect(run.decisions[0].chosen_slot_start).toBe('2026-11-23T09:00:00.000Z');

    const event = calendarEvent(user, { title: 'Dentist', start: '2026-11-23T09:30:00Z', end: '2026-11-23T10:30:00Z' });
    await publish(event);
    await vi.waitFor(async () => expect(await checksDone(event.data.event.id)).toEqual([{ status: 'done' }]), {
      timeout: 10_000,
      interval: 50,
    });

    expect(await getTask(h, user, task.id)).toMatchObject({
      status: 'scheduled',
      chosen_slot_start: '2026-11-23T10:30:00.000Z',
      chosen_slot_end: '2026-11-23T11:30:00.000Z',
    });
    const decisions = await decisionsOf(task.id);
    expect(decisions).toHaveLength(2);
    expect(decisions[1]).toMatchObject({ source: 'solver', supersedes_id: run.decisions[0].id, applied: true });
    expect(decisions[1]?.rationale).toContain('"Dentist" (2026-11-23 09:30 UTC - 2026-11-23 10:30 UTC)');
    const events = await conflictEvents(user.userId);
    expect(events).toHaveLength(1);
    expect(events[0]?.payload.data.moved).toEqual([
      expect.objectContaining({ task_id: task.id, to_start: '2026-11-23T10:30:00.000Z' }),
    ]);

    // The same event delivered again (and the same version republished, which the task service declines as
    // not newer than its copy) changes nothing.
    await publish(event);
    await publish({ ...event, id: uuidv7() });
    expect(await checksDone(event.data.event.id)).toEqual([{ status: 'done' }]);
    expect(await decisionsOf(task.id)).toHaveLength(2);
    expect(await conflictEvents(user.userId)).toHaveLength(1);
  });

  it('clears the slot of a task that no longer fits anywhere and says so in the conflict event', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const task = await createTask(h, user, { title: 'urgent', duration_min: 60, deadline_at: '2026-11-23T10:00:00Z' });
    await ok(await h.scheduler.call(user, 'POST', '/service/schedule', { task_ids: [task.id] }));
    const event = calendarEvent(user, { title: 'Standup', start: '2026-11-23T09:00:00Z', end: '2026-11-23T09:30:00Z' });
    await publish(event);
    await vi.waitFor(async () => expect(await checksDone(event.data.event.id)).toEqual([{ status: 'done' }]), {
      timeout: 10_000,
      interval: 50,
    });
    expect(await getTask(h, user, task.id)).toMatchObject({ chosen_slot_start: null, chosen_slot_end: null });
    const [conflicted] = await conflictEvents(user.userId);
    expect(conflicted?.payload.data).toMatchObject({
      moved: [],
      unscheduled: [expect.objectContaining({ task_id: task.id, title: 'urgent' })],
    });
  });

  it('moves a parent with its children as one block', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const parent = await createTask(h, user, { title: 'parent', duration_min: 30 });
    const child = await createTask(h, user, { title: 'child', duration_min: 30, parent_task_id: parent.id });
    await ok(await h.scheduler.call(user, 'POST', '/service/schedule', { task_ids: [parent.id] }));
    expect(await getTask(h, user, child.id)).toMatchObject({ chosen_slot_start: '2026-11-23T09:30:00.000Z' });
    const event = calendarEvent(user, { title: 'Call', start: '2026-11-23T09:15:00Z', end: '2026-11-23T09:45:00Z' });
    await publish(event);
    await vi.waitFor(async () => expect(await checksDone(event.data.event.id)).toEqual([{ status: 'done' }]), {
      timeout: 10_000,
      interval: 50,
    });
    expect(await getTask(h, user, parent.id)).toMatchObject({
      chosen_slot_start: '2026-11-23T09:45:00.000Z',
      chosen_slot_end: '2026-11-23T10:45:00.000Z',
    });
    expect(await getTask(h, user, child.id)).toMatchObject({
      chosen_slot_start: '2026-11-23T10:15:00.000Z',
      chosen_slot_end: '2026-11-23T10:45:00.000Z',
    });
    expect(await conflictEvents(user.userId)).toHaveLength(1);
  });

  it('keeps a slot the user set by hand: no decision, no move, no conflict event', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const task = await createTask(h, user, { title: 'by hand', duration_min: 60 });
    const slot = { chosen_slot_start: '2026-11-23T10:30:00.000Z', chosen_slot_end: '2026-11-23T11:30:00.000Z' };
    await ok(await h.task.call(user, 'PATCH', `/service/tasks/${task.id}`, slot));
    const event = calendarEvent(user, { title: 'Standup', start: '2026-11-23T10:00:00Z', end: '2026-11-23T11:00:00Z' });
    await publish(event);
    await vi.waitFor(async () => expect(await checksDone(event.data.event.id)).toEqual([{ status: 'done' }]), {
      timeout: 10_000,
      interval: 50,
    });
    expect(await getTask(h, user, task.id)).toMatchObject(slot);
    expect(await decisionsOf(task.id)).toEqual([]);
    expect(await conflictEvents(user.userId)).toEqual([]);
  });

  it('does nothing when the event overlaps no scheduled task', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const task = await createTask(h, user, { title: 'elsewhere', duration_min: 30 });
    await ok(await h.scheduler.call(user, 'POST', '/service/schedule', { task_ids: [task.id] }));
    const event = calendarEvent(user, { title: 'Lunch', start: '2026-11-23T12:00:00Z', end: '2026-11-23T13:00:00Z' });
    await publish(event);
    await vi.waitFor(async () => expect(await checksDone(event.data.event.id)).toEqual([{ status: 'done' }]), {
      timeout: 10_000,
      interval: 50,
    });
    expect(await getTask(h, user, task.id)).toMatchObject({ chosen_slot_start: '2026-11-23T09:00:00.000Z' });
    expect(await decisionsOf(task.id)).toHaveLength(1);
    expect(await conflictEvents(user.userId)).toEqual([]);
  });

  it('checks only what the task service applied: a late, older copy of an event starts no check', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const task = await createTask(h, user, { title: 'stays', duration_min: 60 });
    await ok(await h.scheduler.call(user, 'POST', '/service/schedule', { task_ids: [task.id] }));
    const id = uuidv7();
    // Version 2 moved the event clear of the task; version 1 (over the task) arrives after it.
    const newer = calendarEvent(user, {
      id,
      title: 'Moved',
      start: '2026-11-23T15:00:00Z',
      end: '2026-11-23T16:00:00Z',
      version: 2,
    });
    const older = calendarEvent(user, {
      id,
      title: 'Moved',
      start: '2026-11-23T09:00:00Z',
      end: '2026-11-23T10:00:00Z',
      version: 1,
    });
    await publish(newer);
    await vi.waitFor(async () => expect(await checksDone(id)).toEqual([{ status: 'done' }]), {
      timeout: 10_000,
      interval: 50,
    });
    await publish(older);
    expect(await checksDone(id)).toEqual([{ status: 'done' }]);
    expect(await getTask(h, user, task.id)).toMatchObject({ chosen_slot_start: '2026-11-23T09:00:00.000Z' });
    expect(await decisionsOf(task.id)).toHaveLength(1);
    expect(await conflictEvents(user.userId)).toEqual([]);
  });
});
