import { Sql } from '@routinely/db';
import { JetStreamTransport } from '@routinely/events';
import { googleRateLimitBody, quietLogger, requireEnv, uniqueName } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleEventId } from '../src/adapters/write-back-google.js';
import { tenantIntegrationHealth } from '../src/db/status-sql.js';
import { type Harness, sqlRows, startHarness } from './harness.js';
import { drain, recorded, slot, taskOf, taskPublisher, writingUser } from './write-back-helpers.js';

// Real JetStream and PostgreSQL, the provider fakes; the worker is driven by hand on the manual clock, so a
// 30 s rate limit or a lapsed claim is a clock step, not a wait.
let h: Harness;
let transport: JetStreamTransport;
let tasks: ReturnType<typeof taskPublisher>;
beforeAll(async () => {
  transport = await JetStreamTransport.connect(requireEnv('NATS_URL'), quietLogger(), uniqueName('write_back_faults'));
  h = await startHarness({ transport, env: { INTEGRATION_WRITE_BACK_BACKOFF_MS: '1000' } });
  tasks = taskPublisher(h, transport);
});
afterAll(async () => {
  await h?.close();
  await transport?.deleteStreams();
  await transport?.close();
});

const integration = async (id: string) =>
  (
    await sqlRows<{ status: string; error: string | null; retry_at: Date | null; last_error: string | null }>(
      h.orm,
      `select status, write_back_last_error as error, write_back_retry_at as retry_at, last_error
       from integrations where id = ?`,
      [id],
    )
  )[0];
const pending = async (taskId: string) =>
  (await sqlRows<{ pending: boolean }>(h.orm, 'select pending from write_back_tasks where task_id = ?', [taskId]))[0]
    ?.pending;
const logOf = (taskId: string) =>
  h.google.written.log.filter((entry) => entry.eventId.startsWith(googleEventId(taskId, 0)));

describe('exactly one event per task, in order', () => {
  it('the same event delivered three times makes one event; an older one never overwrites a newer', async () => {
    const { user, calendarId } = await writingUser(h, 'google');
    const task = taskOf(user, { ...slot('2026-11-23T09:00:00Z'), version: 2 });
    const envelope = tasks.event('taskScheduled', task);
    for (let i = 0; i < 3; i++) await transport.publish(envelope);
    await recorded(h, { [task.id]: 2 });
    await drain(h);
    expect(h.google.written.live(calendarId)).toHaveLength(1);

    // Version 4 arrives before version 3 (racing relays): the event ends at version 4's slot.
    await tasks.publish('taskScheduled', { ...task, ...slot('2026-11-23T15:00:00Z'), version: 4 });
    await tasks.publish('taskScheduled', { ...task, ...slot('2026-11-23T12:00:00Z'), version: 3 });
    await recorded(h, { [task.id]: 4 });
    await drain(h);
    const live = h.google.written.live(calendarId);
    expect(live.map((e) => (e.body.start as { dateTime: string }).dateTime)).toEqual(['2026-11-23T15:00:00.000Z']);
    expect(logOf(task.id).map((entry) => entry.op)).toEqual(['insert', 'patch']);
  });

  it('the provider wrote but the answer was lost; a restarted instance retries and finds the event (Google)', async () => {
    const { user, calendarId } = await writingUser(h, 'google');
    const task = taskOf(user, { ...slot('2026-11-24T09:00:00Z'), version: 2 });
    await tasks.publish('taskScheduled', task);
    await recorded(h, { [task.id]: 2 });
    h.google.loseAnswerNext('POST', /\/events$/);
    expect(await h.service.workers.writeBack()).toBe(0);
    expect(h.google.written.live(calendarId)).toHaveLength(1);
    expect(await pending(task.id)).toBe(true);

    const restarted = await h.spawn();
    h.clock.advance(61_000);
    expect(await restarted.service.workers.writeBack()).toBe(1);
    expect(h.google.written.live(calendarId)).toHaveLength(1);
    expect(await pending(task.id)).toBe(false);
  });

  it('the same for Microsoft: the retried create carries the transactionId and answers the first event', async () => {
    const { user, calendarId } = await writingUser(h, 'microsoft');
    const task = taskOf(user, { ...slot('2026-11-24T09:00:00Z'), version: 2 });
    await tasks.publish('taskScheduled', task);
    await recorded(h, { [task.id]: 2 });
    h.microsoft.loseAnswerNext('POST', /\/events$/);
    expect(await h.service.workers.writeBack()).toBe(0);
    const restarted = await h.spawn();
    h.clock.advance(61_000);
    expect(await restarted.service.workers.writeBack()).toBe(1);
    expect(h.microsoft.written.live(calendarId)).toHaveLength(1);
  });
});

describe('a good citizen of the provider', () => {
  it('rate-limited for 30 s: nothing is lost, every task ends at its last slot, never an older after a newer', async () => {
    const { user, integrationId, calendarId } = await writingUser(h, 'google');
    const three = Array.from({ length: 3 }, (_, i) =>
      taskOf(user, { ...slot(`2026-11-25T0${7 + i}:00:00Z`), version: 2 }),
    );
    const limit = h.google.rateLimit(429, '30');
    for (const task of three) await tasks.publish('taskScheduled', task);
    await recorded(h, Object.fromEntries(three.map((t) => [t.id, 2])));
    expect(await h.service.workers.writeBack()).toBe(0);
    expect((await integration(integrationId))?.error).toBe('provider_throttled');
    // More moves while it waits: coalesced per task.
    for (const [i, task] of three.entries()) {
      await tasks.publish('taskScheduled', { ...task, ...slot(`2026-11-26T1${i}:00:00Z`), version: 3 });
      await tasks.publish('taskScheduled', { ...task, ...slot(`2026-11-27T1${i}:30:00Z`), version: 4 });
    }
    await recorded(h, Object.fromEntries(three.map((t) => [t.id, 4])));
    const throttled = h.google.counts.throttled;
    h.clock.advance(10_000);
    expect(await h.service.workers.writeBack()).toBe(0);
    expect(h.google.counts.throttled).toBe(throttled);
    limit.lift();
    h.clock.advance(21_000);
    expect(await drain(h)).toBe(3);
    const starts = h.google.written
      .live(calendarId)
      .map((e) => (e.body.start as { dateTime: string }).dateTime)
      .sort();
    expect(starts).toEqual(['2026-11-27T10:30:00.000Z', '2026-11-27T11:30:00.000Z', '2026-11-27T12:30:00.000Z']);
    for (const task of three) expect(logOf(task.id).map((e) => e.op)).toEqual(['insert']);
    expect((await integration(integrationId))?.error).toBeNull();
  });

  it("Google's 403 rateLimitExceeded without Retry-After backs off exponentially", async () => {
    const { user, integrationId } = await writingUser(h, 'google');
    const task = taskOf(user, { ...slot('2026-11-25T09:00:00Z'), version: 2 });
    await tasks.publish('taskScheduled', task);
    await recorded(h, { [task.id]: 2 });
    h.google.throttleNext(2, 403, null, googleRateLimitBody);
    const now = () => h.clock.now().getTime();
    await h.service.workers.writeBack();
    expect(new Date(String((await integration(integrationId))?.retry_at)).getTime()).toBe(now() + 1_000);
    h.clock.advance(1_000);
    await h.service.workers.writeBack();
    expect(new Date(String((await integration(integrationId))?.retry_at)).getTime()).toBe(now() + 2_000);
    // The admin health page counts the integration as failing while it backs off, and no more once it wrote.
    const health = () => tenantIntegrationHealth(Sql.of(h.orm), user.tenantId, h.clock.now(), h.clock.now());
    expect((await health()).writeBackFailing).toBe(1);
    h.clock.advance(2_000);
    expect(await drain(h)).toBe(1);
    expect((await health()).writeBackFailing).toBe(0);
  });

  it('an expired access token is refreshed once and the write goes through', async () => {
    const { user, calendarId } = await writingUser(h, 'google');
    const task = taskOf(user, { ...slot('2026-11-25T13:00:00Z'), version: 2 });
    await tasks.publish('taskScheduled', task);
    await recorded(h, { [task.id]: 2 });
    h.google.expireAccessTokens();
    const refreshes = h.google.counts.refresh_token;
    expect(await drain(h)).toBe(1);
    expect(h.google.counts.refresh_token).toBe(refreshes + 1);
    expect(h.google.written.live(calendarId)).toHaveLength(1);
  });

  it('an event the user deleted upstream comes back only when its slot changes', async () => {
    const { user, calendarId } = await writingUser(h, 'google');
    const task = taskOf(user, { ...slot('2026-11-25T09:00:00Z'), version: 2 });
    await tasks.publish('taskScheduled', task);
    await recorded(h, { [task.id]: 2 });
    await drain(h);
    h.google.written.deleteByUser(googleEventId(task.id, 0));
    await tasks.publish('taskUpdated', { ...task, title: 'Renamed', version: 3 });
    await tasks.publish('taskUpdated', { ...task, title: 'Renamed again', version: 4 });
    await recorded(h, { [task.id]: 4 });
    await drain(h);
    expect(h.google.written.live(calendarId)).toEqual([]);
    await tasks.publish('taskScheduled', { ...task, ...slot('2026-11-25T16:00:00Z'), version: 5 });
    await recorded(h, { [task.id]: 5 });
    await drain(h);
    expect(h.google.written.live(calendarId).map((e) => e.id)).toEqual([googleEventId(task.id, 1)]);
  });

  it('invalid_grant keeps the pending changes, tells the user in the bell, and writes them after the reconnect', async () => {
    const { user, integrationId, calendarId } = await writingUser(h, 'google');
    const task = taskOf(user, { ...slot('2026-11-28T09:00:00Z'), version: 2 });
    await tasks.publish('taskScheduled', task);
    await recorded(h, { [task.id]: 2 });
    h.google.failRefreshWithInvalidGrant(true);
    h.google.expireAccessTokens();
    await h.service.workers.writeBack();
    h.google.failRefreshWithInvalidGrant(false);
    expect(await integration(integrationId)).toMatchObject({ status: 'error', last_error: 'reauth_required' });
    const failed = (await h.outbox('integration.integration.failed')).filter(
      (e) => e.data.integration.id === integrationId,
    );
    expect(failed.map((e) => e.data.reauth_required)).toEqual([true]);
    expect(await pending(task.id)).toBe(true);

    const again = await h.call(user, 'POST', `/service/integrations/${integrationId}/reconnect`, {});
    const consent = await fetch(again.json().auth_url, { redirect: 'manual' });
    const callback = new URL(consent.headers.get('location') ?? '');
    await h.app.inject({ url: `${callback.pathname}${callback.search}` });
    expect((await integration(integrationId))?.status).toBe('active');
    expect(await drain(h)).toBe(1);
    expect(h.google.written.live(calendarId)).toHaveLength(1);
  });
});
