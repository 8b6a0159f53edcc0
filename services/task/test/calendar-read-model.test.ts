import { JetStreamTransport } from '@routinely/events';
import { quietLogger, requireEnv, type TestUser, uniqueName } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleted, externalFor, listEvents, publishHandled, revoked, upserted } from './calendar-helpers.js';
import { call, type Harness, startHarness } from './harness.js';

let h: Harness;
let user: TestUser;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const WINDOW = 'from=2026-11-24T00:00:00Z&to=2026-11-25T00:00:00Z';
const titles = async (who: TestUser) => (await listEvents(h, who, WINDOW)).events.map((e) => e.title);
const inboxCount = async (eventId: string) => {
  const result = (await h.orm.em
    .getKnex()
    .raw('select count(*)::int as n from inbox where consumer = ? and event_id = ?', [
      'task.external-events',
      eventId,
    ])) as unknown as { rows: { n: number }[] };
  return result.rows[0]?.n;
};

describe('the read model of provider events', () => {
  it('keeps the newest version: an older copy arriving late changes nothing', async () => {
    user = h.tokens.user();
    const v1 = externalFor({ title: 'v1', version: 1 });
    await publishHandled(h.transport, upserted(user, v1));
    await publishHandled(h.transport, upserted(user, { ...v1, title: 'v3', version: 3 }));
    await publishHandled(h.transport, upserted(user, { ...v1, title: 'v2', version: 2 }));
    expect(await titles(user)).toEqual(['v3']);
    const [event] = (await listEvents(h, user, WINDOW)).events;
    expect(event).toEqual({
      id: v1.id,
      source: 'google',
      title: 'v3',
      start: '2026-11-24T09:00:00.000Z',
      end: '2026-11-24T10:00:00.000Z',
      all_day: false,
      status: 'confirmed',
      busy: true,
      task_id: null,
      integration_id: v1.integration_id,
      external_id: v1.external_id,
      editable: false,
    });
  });

  it('handles a redelivered event once (inbox) and ignores a duplicate copy of the same version', async () => {
    const owner = h.tokens.user();
    const event = externalFor({ title: 'first', version: 4 });
    const envelope = await publishHandled(h.transport, upserted(owner, event));
    await publishHandled(h.transport, upserted(owner, { ...event, title: 'same version, other title' }));
    await publishHandled(h.transport, envelope);
    expect(await inboxCount(envelope.id)).toBe(1);
    expect(await titles(owner)).toEqual(['first']);
  });

  it('deletes on eventDeleted and never lets an older upsert bring the event back', async () => {
    const owner = h.tokens.user();
    const event = externalFor({ title: 'soon gone', version: 1 });
    await publishHandled(h.transport, upserted(owner, event));
    await publishHandled(h.transport, deleted(owner, { ...event, version: 3 }));
    expect(await titles(owner)).toEqual([]);
    await publishHandled(h.transport, upserted(owner, { ...event, title: 'late copy', version: 2 }));
    expect(await titles(owner)).toEqual([]);
    expect((await call(h, owner, 'GET', `/service/calendar/events/${event.id}`)).statusCode).toBe(404);
    // A newer write (the event was restored upstream) shows it again.
    await publishHandled(h.transport, upserted(owner, { ...event, title: 'restored', version: 4 }));
    expect(await titles(owner)).toEqual(['restored']);
  });

  it('drops every event of a revoked integration, keeps other integrations, and ignores copies from before', async () => {
    const owner = h.tokens.user();
    const google = externalFor({ title: 'google one' });
    const googleTwo = externalFor({ integration_id: google.integration_id, title: 'google two' });
    const microsoft = externalFor({ provider: 'microsoft', title: 'microsoft one' });
    for (const e of [google, googleTwo, microsoft]) await publishHandled(h.transport, upserted(owner, e));
    expect(await titles(owner)).toHaveLength(3);
    await publishHandled(h.transport, revoked(owner, google.integration_id, '2026-11-21T09:00:00.000Z', 'google'));
    expect(await titles(owner)).toEqual(['microsoft one']);
    // A copy written before the revocation (late in the stream) stays out; one written after a reconnect is in.
    await publishHandled(h.transport, upserted(owner, { ...google, version: 9, updated_at: '2026-11-21T08:30:00Z' }));
    expect(await titles(owner)).toEqual(['microsoft one']);
    await publishHandled(h.transport, upserted(owner, { ...google, version: 10, updated_at: '2026-11-21T10:00:00Z' }));
    expect((await titles(owner)).sort()).toEqual(['google one', 'microsoft one']);
  });

  it('files events under the envelope owner and leaves out cancelled ones; free ones are not busy', async () => {
    const owner = h.tokens.user();
    const colleague = h.tokens.user({ tenantId: owner.tenantId });
    await publishHandled(h.transport, upserted(owner, externalFor({ title: 'cancelled', status: 'cancelled' })));
    await publishHandled(h.transport, upserted(owner, externalFor({ title: 'free', busy: false })));
    await publishHandled(h.transport, upserted(owner, externalFor({ title: 'tentative', status: 'tentative' })));
    const events = (await listEvents(h, owner, WINDOW)).events;
    expect(events.map((e) => [e.title, e.busy, e.status])).toEqual([
      ['free', false, 'confirmed'],
      ['tentative', true, 'tentative'],
    ]);
    expect(await titles(colleague)).toEqual([]);
  });
});

describe('over JetStream', () => {
  let transport: JetStreamTransport;
  let js: Harness;
  beforeAll(async () => {
    transport = await JetStreamTransport.connect(requireEnv('NATS_URL'), quietLogger(), uniqueName('task-cal'));
    js = await startHarness({}, { transport });
  });
  afterAll(async () => {
    await transport?.deleteStreams();
    await js?.close();
  });

  it('the durable consumer fills the calendar from events the integration service publishes', async () => {
    const owner = js.tokens.user();
    const event = externalFor({ title: 'over nats', provider: 'microsoft' });
    await transport.publish(upserted(owner, event));
    await expect
      .poll(async () => (await call(js, owner, 'GET', `/service/calendar/events/${event.id}`)).json().title, {
        timeout: 15_000,
      })
      .toBe('over nats');
    await transport.publish(deleted(owner, { ...event, version: 2 }));
    await expect
      .poll(async () => (await call(js, owner, 'GET', `/service/calendar/events/${event.id}`)).statusCode, {
        timeout: 15_000,
      })
      .toBe(404);
  });
});
