import { Sql } from '@routinely/db';
import { makeEvent, replayDeadLetters, taskEvents } from '@routinely/events';
import { ManualClock } from '@routinely/platform';
import { defined, SmtpCapture, type WebhookReceiver } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryConsumers } from '../src/events/consumers.js';
import {
  createEndpoint,
  type Harness,
  publishHandled,
  publishTask,
  scheduleDue,
  sqlRows,
  startHarness,
  startWithReceiver,
  taskFor,
} from './harness.js';

const clock = new ManualClock('2026-11-21T08:00:00.000Z');
let h: Harness;
let smtp: SmtpCapture;
let receiver: WebhookReceiver;
let secrets: string[] = [];

beforeAll(async () => {
  smtp = await SmtpCapture.start();
  const started = await startWithReceiver({ clock, env: { SMTP_URL: smtp.url } }, () => secrets);
  ({ h, receiver } = started);
});
afterAll(async () => {
  await receiver?.close();
  await h?.close();
  await smtp?.close();
});

const inMinutes = (m: number) => new Date(clock.now().getTime() + m * 60_000).toISOString();
const reminderOf = async (taskId: string) =>
  (
    await sqlRows<{ status: string; remind_at: string; id: string }>(
      h.orm,
      'select * from reminders where task_id = ?',
      [taskId],
    )
  )[0];

describe('reminders built from task events', () => {
  it('creates at slot - offset, moves with the slot, cancels when done, skipped, unscheduled or deleted', async () => {
    const user = h.tokens.user();
    for (const ending of ['taskCompleted', 'taskSkipped', 'taskUnscheduled', 'taskDeleted'] as const) {
      const task = taskFor(user, {
        chosen_slot_start: inMinutes(60),
        chosen_slot_end: inMinutes(90),
        reminder_offset_min: 15,
      });
      await publishTask(h.transport, 'taskScheduled', task, clock.now());
      expect(new Date(defined(await reminderOf(task.id)).remind_at).toISOString()).toBe(inMinutes(45));
      const moved = {
        ...task,
        chosen_slot_start: inMinutes(120),
        updated_at: new Date(Date.parse(task.updated_at) + 1000).toISOString(),
        version: task.version + 1,
      };
      await publishTask(h.transport, 'taskUpdated', moved, clock.now());
      expect(new Date(defined(await reminderOf(task.id)).remind_at).toISOString()).toBe(inMinutes(105));
      const status =
        ending === 'taskCompleted'
          ? 'done'
          : ending === 'taskSkipped'
            ? 'skipped'
            : ending === 'taskUnscheduled'
              ? 'pending'
              : 'scheduled';
      const ended = {
        ...moved,
        status,
        chosen_slot_start: ending === 'taskUnscheduled' ? null : moved.chosen_slot_start,
        updated_at: new Date(Date.parse(moved.updated_at) + 1000).toISOString(),
        version: moved.version + 1,
      } as typeof task;
      await publishTask(h.transport, ending, ended, clock.now());
      expect((await reminderOf(task.id))?.status, ending).toBe('cancelled');
      // A late, older event cannot bring it back.
      await publishTask(h.transport, 'taskScheduled', task, clock.now());
      expect((await reminderOf(task.id))?.status).toBe('cancelled');
    }
  });

  it('makes no reminder without channels or slot, and lists upcoming within days (1..90)', async () => {
    const user = h.tokens.user();
    const auth = await h.tokens.auth(user);
    const none = taskFor(user, { chosen_slot_start: inMinutes(60), reminder_channels: [] });
    await publishTask(h.transport, 'taskScheduled', none, clock.now());
    expect(await reminderOf(none.id)).toBeUndefined();
    const soon = taskFor(user, {
      title: 'soon',
      chosen_slot_start: inMinutes(60),
      reminder_channels: ['email', 'inapp'],
    });
    const later = taskFor(user, { title: 'later', chosen_slot_start: inMinutes(60 * 24 * 10) });
    for (const t of [later, soon]) await publishTask(h.transport, 'taskScheduled', t, clock.now());
    const week = await h.app.inject({ url: '/api/v1/service/reminders/upcoming', headers: auth });
    expect(week.statusCode).toBe(200);
    expect(week.json()).toEqual([
      {
        reminder_id: defined(await reminderOf(soon.id)).id,
        task_id: soon.id,
        task_title: 'soon',
        remind_at: inMinutes(50),
        channels: ['email', 'inapp'],
      },
    ]);
    const month = await h.app.inject({ url: '/v1/service/reminders/upcoming?days=30', headers: auth });
    expect(month.json().map((r: { task_title: string }) => r.task_title)).toEqual(['soon', 'later']);
    expect(
      (await h.app.inject({ url: '/api/v1/service/reminders/upcoming?days=30&limit=1', headers: auth })).json(),
    ).toHaveLength(1);
    for (const q of ['days=0', 'days=91', 'limit=0']) {
      expect((await h.app.inject({ url: `/api/v1/service/reminders/upcoming?${q}`, headers: auth })).statusCode).toBe(
        422,
      );
    }
    const stranger = h.tokens.user({ tenantId: user.tenantId });
    expect(
      (
        await h.app.inject({
          url: '/api/v1/service/reminders/upcoming?days=30',
          headers: await h.tokens.auth(stranger),
        })
      ).json(),
    ).toEqual([]);
  });
});

describe('firing: one delivery per channel, email and the bell feed', () => {
  it('fires at remind_at into email (SMTP), in-app notification and one delivery per enabled endpoint', async () => {
    const user = h.tokens.user({ email: 'owner@example.test' });
    let auth = await h.tokens.auth(user);
    const a = await createEndpoint(h, user, { url: `${receiver.url}/a` });
    const b = await createEndpoint(h, user, { url: `${receiver.url}/b` });
    await createEndpoint(h, user, { url: `${receiver.url}/off`, enabled: false });
    secrets = [a.secret, b.secret];
    const task = taskFor(user, {
      title: 'Dentist',
      chosen_slot_start: inMinutes(30),
      chosen_slot_end: inMinutes(60),
      reminder_channels: ['email', 'inapp', 'webhook'],
      reminder_offset_min: 10,
    });
    await publishTask(h.transport, 'taskScheduled', task, clock.now());
    clock.advance(20 * 60_000 - 1);
    expect(await h.workers.fireDueReminders()).toBe(0);
    clock.advance(1);
    expect(await h.workers.fireDueReminders()).toBe(1);
    expect(await h.workers.fireDueReminders()).toBe(0);
    auth = await h.tokens.auth(user); // the clock moved past the first token's expiry
    const before = receiver.received.length;
    expect(await h.workers.runDueDeliveries()).toBe(4);
    const logRes = await h.app.inject({ url: '/api/v1/service/reminders/deliveries', headers: auth });
    expect(logRes.statusCode, logRes.body).toBe(200);
    const log = logRes.json();
    expect(log.total).toBe(4);
    expect(log.items.map((d: { channel: string }) => d.channel).sort()).toEqual([
      'email',
      'inapp',
      'webhook',
      'webhook',
    ]);
    expect(log.items.every((d: { status: string; attempts: number }) => d.status === 'sent' && d.attempts === 1)).toBe(
      true,
    );
    const hooks = receiver.received.slice(before);
    expect(hooks.map((w) => w.path).sort()).toEqual(['/a', '/b']);
    const body = hooks[0]?.json as Record<string, unknown>;
    expect(body).toMatchObject({
      event: 'reminder.fired',
      attempt: 1,
      tenant_id: user.tenantId,
      user_id: user.userId,
      occurred_at: clock.now().toISOString(),
      reminder_set_at: '2026-11-21T08:00:00.000Z',
    });
    expect(body.task).toEqual({
      id: task.id,
      title: 'Dentist',
      description: 'All of them',
      priority: 2,
      duration_min: 30,
      chosen_slot_start: task.chosen_slot_start,
      chosen_slot_end: task.chosen_slot_end,
      tags: ['home'],
    });
    const [mail] = await smtp.waitFor(1);
    expect(mail).toMatchObject({ to: ['owner@example.test'], subject: 'Reminder: Dentist' });
    const feed = (await h.app.inject({ url: '/api/v1/service/notifications', headers: auth })).json();
    expect(feed).toMatchObject({ total: 1, unread_count: 1, limit: 50, offset: 0 });
    expect(feed.items[0]).toMatchObject({ kind: 'reminder', title: 'Reminder: Dentist', read: false, read_at: null });
    expect(feed.items[0].data).toMatchObject({ task_id: task.id });
  });

  it('keeps mail in the local outbox table when no SMTP_URL is set', async () => {
    const local = await startHarness({ clock, db: h.db });
    try {
      const user = local.tokens.user({ email: 'local@example.test' });
      await local.app.inject({ url: '/api/v1/service/notifications', headers: await local.tokens.auth(user) }); // learns the address
      await scheduleDue(local, clock, user, {
        slotInMin: 5,
        title: 'Local mail',
        reminder_channels: ['email'],
        reminder_offset_min: 0,
      });
      await local.workers.fireDueReminders();
      await local.workers.runDueDeliveries();
      const rows = await sqlRows<{ to_address: string; subject: string }>(
        h.orm,
        'select to_address, subject from email_outbox',
      );
      expect(rows).toContainEqual({ to_address: 'local@example.test', subject: 'Reminder: Local mail' });
    } finally {
      await local.close();
    }
  });

  it('fallback_to_email: a webhook delivery that dies is emailed to the owner', async () => {
    const user = h.tokens.user({ email: 'fallback@example.test' });
    const endpoint = await createEndpoint(h, user, { url: receiver.url, fallback_to_email: true });
    secrets = [endpoint.secret];
    receiver.setResponder(() => ({ status: 410 }));
    await scheduleDue(h, clock, user, {
      slotInMin: 5,
      title: 'Fallback',
      reminder_channels: ['webhook'],
      reminder_offset_min: 0,
    });
    await h.workers.fireDueReminders();
    const mails = smtp.messages.length;
    await h.workers.runDueDeliveries();
    await h.workers.runDueDeliveries();
    const [mail] = (await smtp.waitFor(mails + 1)).slice(mails);
    expect(mail).toMatchObject({ to: ['fallback@example.test'], subject: 'Reminder: Fallback' });
    receiver.setResponder(() => ({ status: 200 }));
  });
});

describe('notifications', () => {
  it('pages the bell feed, filters unread_only, marks read, and hides other users rows', async () => {
    const user = h.tokens.user();
    const auth = await h.tokens.auth(user);
    await scheduleDue(h, clock, user, { slotInMin: 1, reminder_offset_min: 0 }, 3);
    await h.workers.fireDueReminders();
    await h.workers.runDueDeliveries();
    const page = (await h.app.inject({ url: '/api/v1/service/notifications?limit=2', headers: auth })).json();
    expect(page).toMatchObject({ total: 3, limit: 2, offset: 0, unread_count: 3 });
    expect(page.items).toHaveLength(2);
    const id = page.items[0].id;
    const read = await h.app.inject({
      method: 'PATCH',
      url: `/api/v1/service/notifications/${id}/read`,
      headers: auth,
    });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ id, read: true, read_at: clock.now().toISOString() });
    const unread = (await h.app.inject({ url: '/v1/service/notifications?unread_only=true', headers: auth })).json();
    expect(unread).toMatchObject({ total: 2, unread_count: 2 });
    expect(unread.items.map((n: { id: string }) => n.id)).not.toContain(id);
    expect(
      (await h.app.inject({ url: '/api/v1/service/notifications?offset=2', headers: auth })).json().items,
    ).toHaveLength(1);

    const noPerms = h.tokens.user({ tenantId: user.tenantId, permissions: [] });
    expect(
      (await h.app.inject({ url: '/api/v1/service/notifications', headers: await h.tokens.auth(noPerms) })).json(),
    ).toMatchObject({ total: 0, unread_count: 0 });
    const other = await h.tokens.auth(h.tokens.user());
    expect(
      (await h.app.inject({ method: 'PATCH', url: `/api/v1/service/notifications/${id}/read`, headers: other }))
        .statusCode,
    ).toBe(404);
    expect(
      (
        await h.app.inject({
          method: 'PATCH',
          url: `/api/v1/service/notifications/${id}/read`,
          headers: await h.tokens.auth(noPerms),
        })
      ).statusCode,
    ).toBe(404);
    // 401 and 422 on both routes: route-guards.test.ts.
  });
});

describe('task events the reminder consumer cannot take', () => {
  it('dead-letters a task event whose data fails the catalog schema, keeps consuming, and replays it once fixed', async () => {
    const user = h.tokens.user();
    const task = taskFor(user, { chosen_slot_start: inMinutes(60), chosen_slot_end: inMinutes(90) });
    const event = makeEvent(
      taskEvents.taskScheduled,
      { tenantId: user.tenantId, userId: user.userId, at: clock.now() },
      { task },
    );
    await publishHandled(h.transport, { ...event, data: { task: { ...task, status: 'someday' } } });
    const letters = await sqlRows<{ id: string; subject: string; error: string }>(
      h.orm,
      "select id, subject, error from event_dead_letter where consumer = 'delivery.reminders' and event_id = ?",
      [event.id],
    );
    expect(letters).toEqual([
      { id: expect.any(String), subject: 'task.task.scheduled', error: expect.stringContaining('status') },
    ]);
    expect(await reminderOf(task.id)).toBeUndefined();
    // The next event of the same consumer still flows.
    const next = taskFor(user, { chosen_slot_start: inMinutes(60), chosen_slot_end: inMinutes(90) });
    await publishTask(h.transport, 'taskScheduled', next, clock.now());
    expect((await reminderOf(next.id))?.status).toBe('scheduled');
    // An operator repairs the stored payload; replay runs the consumer through its inbox and removes the letter.
    await sqlRows(h.orm, 'update event_dead_letter set payload = ?::jsonb where id = ?', [
      JSON.stringify(event),
      letters[0]?.id,
    ]);
    const consumers = deliveryConsumers({ clock, onReminderChanged: () => {} });
    expect(await replayDeadLetters(Sql.of(h.orm), consumers.reminders)).toEqual({
      replayed: [letters[0]?.id],
      failed: [],
    });
    expect((await reminderOf(task.id))?.status).toBe('scheduled');
    expect(await sqlRows(h.orm, "select * from event_dead_letter where consumer = 'delivery.reminders'")).toEqual([]);
  });
});
