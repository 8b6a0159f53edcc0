import { JetStreamTransport } from '@routinely/events';
import { renderMetrics } from '@routinely/platform';
import { quietLogger, requireEnv, uniqueName } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleEventId } from '../src/adapters/write-back-google.js';
import { type Harness, sqlRows, startHarness } from './harness.js';
import { drain, recorded, slot, taskOf, taskPublisher, writeBackCalendar, writingUser } from './write-back-helpers.js';

// The task service's events reach the service through real JetStream; the write-back worker is driven by hand.
let h: Harness;
let transport: JetStreamTransport;
let tasks: ReturnType<typeof taskPublisher>;
beforeAll(async () => {
  transport = await JetStreamTransport.connect(requireEnv('NATS_URL'), quietLogger(), uniqueName('write_back'));
  h = await startHarness({ transport });
  tasks = taskPublisher(h, transport);
});
afterAll(async () => {
  await h?.close();
  await transport?.deleteStreams();
  await transport?.close();
});

const googleEvents = (calendarId: string) => h.google.written.live(calendarId);
const startOf = (body: Record<string, unknown>) => (body.start as { dateTime: string }).dateTime;

describe('the write-back switch', () => {
  it('oauth/start asks for the least write scope beside read', async () => {
    const user = h.tokens.user();
    for (const [provider, scope] of [
      ['google', 'https://www.googleapis.com/auth/calendar.app.created'],
      ['microsoft', 'Calendars.ReadWrite'],
    ] as const) {
      const res = await h.call(user, 'POST', `/service/integrations/${provider}/oauth/start`, {});
      expect(new URL(res.json().auth_url).searchParams.get('scope')?.split(' ')).toContain(scope);
    }
  });

  it('answers the integration with write_back; one writer per user; a row without the write scope must reconnect', async () => {
    const user = h.tokens.user();
    const { integrationId: first } = await h.connect(user, 'google');
    const { integrationId: second } = await h.connect(user, 'microsoft');
    const on = await h.call(user, 'PATCH', `/service/integrations/${first}`, {
      write_back: { enabled: true, calendar_name: 'Planned by Routinely' },
    });
    expect(on.statusCode, on.body).toBe(200);
    expect(on.json().write_back).toEqual({
      enabled: true,
      calendar_name: 'Planned by Routinely',
      show_as: 'busy',
      calendar_id: null,
      last_written_at: null,
      last_error: null,
    });
    const other = await h.call(user, 'PATCH', `/service/integrations/${second}`, { write_back: { enabled: true } });
    expect(other.statusCode).toBe(409);
    expect(other.json().code).toBe('write_back_in_use');
    // Off on the first, then the second may write back.
    expect(
      (await h.call(user, 'PATCH', `/service/integrations/${first}`, { write_back: { enabled: false } })).statusCode,
    ).toBe(200);
    expect(
      (await h.call(user, 'PATCH', `/service/integrations/${second}`, { write_back: { enabled: true } })).statusCode,
    ).toBe(200);

    // Connected while the consent withheld the write scope (as rows from before write-back were).
    const readOnly = h.tokens.user();
    h.google.grantScope = (asked) => asked.replace('https://www.googleapis.com/auth/calendar.app.created', '').trim();
    const { integrationId } = await h.connect(readOnly, 'google').finally(() => {
      h.google.grantScope = null;
    });
    const refused = await h.call(readOnly, 'PATCH', `/service/integrations/${integrationId}`, {
      write_back: { enabled: true },
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().code).toBe('reconnect_required');
  });

  it('a pending integration cannot write back; a bad body names the field', async () => {
    const user = h.tokens.user();
    const start = await h.call(user, 'POST', '/service/integrations/google/oauth/start', {});
    const id = start.json().integration_id;
    expect(
      (await h.call(user, 'PATCH', `/service/integrations/${id}`, { write_back: { enabled: true } })).statusCode,
    ).toBe(409);
    const bad = await h.call(user, 'PATCH', `/service/integrations/${id}`, {
      write_back: { enabled: true, calendar_name: '' },
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].loc).toEqual(['body', 'write_back', 'calendar_name']);
  });
});

describe('the mirror (Google)', () => {
  it('a slot set, moved and cleared creates, moves and removes one event; busy sends no title', async () => {
    const { user, calendarId } = await writingUser(h, 'google');
    expect(h.google.written.calendars.get(calendarId)?.name).toBe('Routinely');
    const task = taskOf(user, { ...slot('2026-11-23T09:00:00Z'), version: 2 });
    await tasks.publish('taskScheduled', task);
    await recorded(h, { [task.id]: 2 });
    expect(await drain(h)).toBe(1);
    const [written] = googleEvents(calendarId);
    expect(written?.id).toBe(googleEventId(task.id, 0));
    expect(written?.body.summary).toBe('Busy');
    expect(written?.body.description).toBeUndefined();
    expect(JSON.stringify(h.google.written.log)).not.toContain('Deep work');
    expect(JSON.stringify(h.google.written.log)).not.toContain('Private notes');
    expect(written?.body.extendedProperties).toEqual({ private: { routinely_task_id: task.id } });

    const moved = { ...task, ...slot('2026-11-24T14:00:00Z', 30), version: 3 };
    await tasks.publish('taskScheduled', moved);
    await recorded(h, { [task.id]: 3 });
    await drain(h);
    expect(googleEvents(calendarId).map((e) => [e.id, startOf(e.body)])).toEqual([
      [googleEventId(task.id, 0), '2026-11-24T14:00:00.000Z'],
    ]);

    const cleared = {
      ...moved,
      chosen_slot_start: null,
      chosen_slot_end: null,
      status: 'pending' as const,
      version: 4,
    };
    await tasks.publish('taskUnscheduled', cleared);
    await recorded(h, { [task.id]: 4 });
    await drain(h);
    expect(googleEvents(calendarId)).toEqual([]);
    const [row] = await sqlRows<{ write_back: string }>(
      h.orm,
      'select write_back_last_written_at as write_back from integrations where write_back_calendar_id = ?',
      [calendarId],
    );
    expect(row?.write_back).not.toBeNull();
  });

  it('a run placing ten tasks writes ten events; a routine fill writes its occurrences; a delete removes', async () => {
    const { user, calendarId } = await writingUser(h, 'google', { show_as: 'details' });
    const placed = Array.from({ length: 10 }, (_, i) =>
      taskOf(user, {
        ...slot(`2026-11-2${3 + (i % 5)}T${10 + Math.floor(i / 5)}:00:00Z`),
        version: 2,
        title: `Task ${i}`,
      }),
    );
    // A fill's occurrences arrive created with their slots.
    const occurrences = Array.from({ length: 3 }, (_, i) =>
      taskOf(user, { ...slot(`2026-11-2${3 + i}T07:00:00Z`, 15), title: 'Stretch', description: null, version: 1 }),
    );
    await Promise.all([
      ...placed.map((task) => tasks.publish('taskScheduled', task)),
      ...occurrences.map((task) => tasks.publish('taskCreated', task)),
    ]);
    await recorded(h, Object.fromEntries([...placed, ...occurrences].map((t) => [t.id, t.version])));
    expect(await drain(h)).toBe(13);
    const events = googleEvents(calendarId);
    expect(events).toHaveLength(13);
    const first = events.find((e) => e.id === googleEventId(String(placed[0]?.id), 0));
    expect(first?.body.summary).toBe('Task 0');
    expect(first?.body.description).toBe(
      `Private notes about the plan\n\nhttps://routinely.test/calendar?task=${placed[0]?.id}`,
    );

    const gone = placed[3];
    if (!gone) throw new Error('no task');
    await tasks.publish('taskDeleted', { ...gone, version: 3 });
    await recorded(h, { [gone.id]: 3 });
    await drain(h);
    expect(googleEvents(calendarId)).toHaveLength(12);
    expect(googleEvents(calendarId).map((e) => e.id)).not.toContain(googleEventId(gone.id, 0));
  });

  it('turning write-back off deletes the calendar; a reconnect finds it again instead of making a second', async () => {
    const { user, integrationId, calendarId } = await writingUser(h, 'google');
    const task = taskOf(user, { ...slot('2026-11-25T09:00:00Z'), version: 2 });
    await tasks.publish('taskScheduled', task);
    await recorded(h, { [task.id]: 2 });
    await drain(h);
    expect(googleEvents(calendarId)).toHaveLength(1);

    // Disconnected and connected again (a new row): the calendar stays upstream and is found by its marker.
    expect((await h.call(user, 'DELETE', `/service/integrations/${integrationId}`)).statusCode).toBe(204);
    const { integrationId: again } = await h.connect(user, 'google');
    await h.call(user, 'PATCH', `/service/integrations/${again}`, { write_back: { enabled: true } });
    await drain(h);
    expect(await writeBackCalendar(h, again)).toBe(calendarId);
    const mine = [...h.google.written.calendars.values()].filter((c) => c.description?.includes(user.userId));
    expect(mine).toHaveLength(1);
    expect(googleEvents(calendarId)).toHaveLength(1);

    const off = await h.call(user, 'PATCH', `/service/integrations/${again}`, { write_back: { enabled: false } });
    expect(off.json().write_back.enabled).toBe(false);
    await drain(h);
    expect(h.google.written.calendars.has(calendarId)).toBe(false);
    expect(h.google.written.deletedCalendars).toContain(calendarId);
    expect(await writeBackCalendar(h, again)).toBeNull();
  });

  it('the written calendar is never read back as busy time', async () => {
    const { user, integrationId, calendarId } = await writingUser(h, 'google');
    const task = taskOf(user, { ...slot('2026-11-26T09:00:00Z'), version: 2 });
    await tasks.publish('taskScheduled', task);
    await recorded(h, { [task.id]: 2 });
    await drain(h);
    expect(googleEvents(calendarId)).toHaveLength(1);
    const sync = await h.call(user, 'POST', `/service/integrations/${integrationId}/sync`);
    expect(sync.statusCode, sync.body).toBe(200);
    const copies = await sqlRows(
      h.orm,
      'select 1 from external_events where integration_id = ? and external_id like ?',
      [integrationId, 'rt%'],
    );
    expect(copies).toEqual([]);
  });

  it('pending changes are a gauge in /metrics', async () => {
    const { user } = await writingUser(h, 'google');
    await tasks.publish('taskScheduled', taskOf(user, { ...slot('2026-11-27T09:00:00Z'), version: 2 }));
    await tasks.publish('taskScheduled', taskOf(user, { ...slot('2026-11-27T11:00:00Z'), version: 2 }));
    await expect
      .poll(async () => /routinely_integration_write_back_pending (\d+)/.exec((await renderMetrics()).body)?.[1])
      .toBe('2');
    await drain(h);
    expect(/routinely_integration_write_back_pending (\d+)/.exec((await renderMetrics()).body)?.[1]).toBe('0');
  });
});

describe('the mirror (Microsoft)', () => {
  it('creates the calendar with its marker and one event per task with transactionId and the task property', async () => {
    const { user, calendarId } = await writingUser(h, 'microsoft');
    const task = taskOf(user, { ...slot('2026-11-23T09:00:00Z'), version: 2 });
    await tasks.publish('taskScheduled', task);
    await recorded(h, { [task.id]: 2 });
    expect(await drain(h)).toBe(1);
    const [event] = h.microsoft.written.live(calendarId);
    expect(event?.body.subject).toBe('Busy');
    expect(event?.body.body).toEqual({ contentType: 'text', content: '' });
    expect(event?.body.transactionId).toBe(`${task.id}.0`);
    expect(event?.body.singleValueExtendedProperties).toEqual([
      { id: expect.stringContaining('Name routinely_task_id'), value: task.id },
    ]);
    await tasks.publish('taskScheduled', { ...task, ...slot('2026-11-23T15:00:00Z'), version: 3 });
    await recorded(h, { [task.id]: 3 });
    await drain(h);
    const live = h.microsoft.written.live(calendarId);
    expect(live.map((e) => (e.body.start as { dateTime: string }).dateTime)).toEqual(['2026-11-23T15:00:00.000']);
    await tasks.publish('taskDeleted', { ...task, version: 4 });
    await recorded(h, { [task.id]: 4 });
    await drain(h);
    expect(h.microsoft.written.live(calendarId)).toEqual([]);
  });
});
