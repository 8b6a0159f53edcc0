import { createRpcClient, InternalAuth, type RpcClient, Server, startRpcServer, stopRpcServer } from '@routinely/grpc';
import { scheduler_v1 } from '@routinely/proto';
import type { TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Harness, INTERNAL_SECRET, ok, startHarness } from './harness.js';

let h: Harness;
let server: Server;
let settings: RpcClient<typeof scheduler_v1.SettingsServiceService>;
let quota: RpcClient<typeof scheduler_v1.QuotaServiceService>;

beforeAll(async () => {
  h = await startHarness({ LLM_PRICES: JSON.stringify({ 'test-model': { input: 1, output: 2 } }) });
  server = new Server();
  h.service.addGrpc?.(server);
  const address = await startRpcServer(server, '127.0.0.1', 0);
  settings = createRpcClient(scheduler_v1.SettingsServiceService, address, new InternalAuth(INTERNAL_SECRET, 'task'));
  quota = createRpcClient(scheduler_v1.QuotaServiceService, address, new InternalAuth(INTERNAL_SECRET, 'task'));
});
afterAll(async () => {
  settings?.close();
  quota?.close();
  if (server) await stopRpcServer(server);
  await h?.close();
});

const actorOf = (u: TestUser) => ({ actor: { tenantId: u.tenantId, userId: u.userId, permissions: u.permissions } });

describe('scheduler.v1 over loopback gRPC', () => {
  it("GetSettings answers the user's settings and the tenant policy", async () => {
    const user = h.tokens.user();
    await ok(await call(h, user, 'PATCH', '/service/settings/me', { timezone: 'Australia/Sydney' }));
    const res = await settings.getSettings({ windowStart: '', windowEnd: '' }, actorOf(user));
    expect(res).toMatchObject({
      userId: user.userId,
      timezone: 'Australia/Sydney',
      llmProviderDefault: 'builtin',
      llmProviderEffective: 'builtin',
      llmProviderTenantDefault: 'builtin',
      llmProviderLocked: false,
      reminderOffsetMin: 10,
      workingIntervals: [],
    });
    expect(JSON.parse(res.workingHoursJson).mon).toEqual([{ start: '09:00', end: '17:00' }]);
    expect(JSON.parse(res.noGoWindowsJson)).toEqual([]);
  });

  it('GetSettings refuses a window without an offset or ending before it starts', async () => {
    const user = h.tokens.user();
    await expect(
      settings.getSettings({ windowStart: '2026-11-21T00:00:00', windowEnd: '2026-11-22T00:00:00Z' }, actorOf(user)),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(
      settings.getSettings({ windowStart: '2026-11-22T00:00:00Z', windowEnd: '2026-11-21T00:00:00Z' }, actorOf(user)),
    ).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it('refuses a call without a user or without the permission', async () => {
    const user = h.tokens.user({ permissions: ['SERVICE_TASK_READ'] });
    await expect(
      quota.recordUsage(
        { provider: 'openai', model: 'm', inputTokens: 1, outputTokens: 1, runId: '', reservationId: '' },
        actorOf(user),
      ),
    ).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('RecordUsage refuses a token count past any model (1e15 would overflow the ledger)', async () => {
    const user = h.tokens.user();
    await expect(
      quota.recordUsage(
        { provider: 'openai', model: 'test-model', inputTokens: 1e15, outputTokens: 1, runId: '', reservationId: '' },
        actorOf(user),
      ),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    expect((await ok(await call(h, user, 'GET', '/service/llm/usage/today'))).calls).toBe(0);
  });

  it('CheckAndReserveQuota holds spend up to the hard cap; RecordUsage records and releases it', async () => {
    const user = h.tokens.user();
    const first = await quota.checkAndReserveQuota({ provider: 'openai', estimatedUsd: 15 }, actorOf(user));
    expect(first).toMatchObject({ allowed: true, dailyUsd: 0, softCapUsd: 5, hardCapUsd: 20, date: '2026-11-21' });
    expect(first.reservationId).toMatch(/^[0-9a-f-]{36}$/);
    // 15 held: another 10 would pass the hard cap of 20.
    expect((await quota.checkAndReserveQuota({ provider: 'openai', estimatedUsd: 10 }, actorOf(user))).allowed).toBe(
      false,
    );
    // builtin is never refused and reserves nothing.
    expect(await quota.checkAndReserveQuota({ provider: 'builtin', estimatedUsd: 0 }, actorOf(user))).toMatchObject({
      allowed: true,
      reservationId: '',
    });
    const recorded = await quota.recordUsage(
      {
        runId: '0192f000-0000-7000-8000-000000000001',
        provider: 'openai',
        model: 'test-model',
        inputTokens: 1_000_000,
        outputTokens: 500_000,
        reservationId: first.reservationId,
      },
      actorOf(user),
    );
    expect(recorded).toMatchObject({ costUsd: 2, dailyUsd: 2, softBreached: false, hardBreached: false });
    // The reservation is released: 2 spent, 17 more fits under 20.
    expect((await quota.checkAndReserveQuota({ provider: 'openai', estimatedUsd: 17 }, actorOf(user))).allowed).toBe(
      true,
    );
    const today = await ok(await call(h, user, 'GET', '/service/llm/usage/today'));
    expect(today).toMatchObject({ calls: 1, input_tokens: 1_000_000, output_tokens: 500_000, total_usd: 2 });
  });

  it('refuses once the day has reached the hard cap', async () => {
    const user = h.tokens.user();
    await quota.recordUsage(
      {
        runId: '',
        provider: 'openai',
        model: 'test-model',
        inputTokens: 20_000_000,
        outputTokens: 0,
        reservationId: '',
      },
      actorOf(user),
    );
    expect(await quota.checkAndReserveQuota({ provider: 'openai', estimatedUsd: 0 }, actorOf(user))).toMatchObject({
      allowed: false,
      dailyUsd: 20,
    });
  });
});

describe('GetSettings with a window', () => {
  it('hands the settings and the window to expandWorkingTime and answers its intervals in UTC', async () => {
    // Wiring only: the DST-correct expansion itself is @routinely/scheduling's, tested there.
    const seen: unknown[] = [];
    const w = await startHarness(
      {},
      {
        extra: {
          expandWorkingTime: (input) => {
            seen.push(input);
            return [{ start: new Date('2026-11-23T08:00:00Z'), end: new Date('2026-11-23T16:00:00Z') }];
          },
        },
      },
    );
    const s = new Server();
    w.service.addGrpc?.(s);
    const client = createRpcClient(
      scheduler_v1.SettingsServiceService,
      await startRpcServer(s, '127.0.0.1', 0),
      new InternalAuth(INTERNAL_SECRET, 'scheduler'),
    );
    try {
      const user = w.tokens.user();
      await ok(await call(w, user, 'PATCH', '/service/settings/me', { timezone: 'Europe/Berlin' }));
      const res = await client.getSettings(
        { windowStart: '2026-11-23T00:00:00+01:00', windowEnd: '2026-11-24T00:00:00+01:00' },
        actorOf(user),
      );
      expect(res.workingIntervals).toEqual([{ start: '2026-11-23T08:00:00.000Z', end: '2026-11-23T16:00:00.000Z' }]);
      expect(seen).toEqual([
        {
          timezone: 'Europe/Berlin',
          workingHours: expect.objectContaining({ mon: [{ start: '09:00', end: '17:00' }], sat: [] }),
          noGoWindows: [],
          window: { start: new Date('2026-11-22T23:00:00Z'), end: new Date('2026-11-23T23:00:00Z') },
        },
      ]);
      await expect(
        client.getSettings({ windowStart: '2026-11-01T00:00:00Z', windowEnd: '2027-03-01T00:00:00Z' }, actorOf(user)),
      ).rejects.toMatchObject({ code: 'validation_failed' });
    } finally {
      client.close();
      await stopRpcServer(s);
      await w.close();
    }
  });

  it('answers working time expanded in the user zone, 09:00 local on both sides of the 2027-03-28 Berlin change', async () => {
    const user = h.tokens.user();
    await ok(await call(h, user, 'PATCH', '/service/settings/me', { timezone: 'Europe/Berlin' }));
    await ok(
      await call(h, user, 'PUT', '/service/settings/working-hours', {
        fri: [{ start: '09:00', end: '10:00' }],
        mon: [{ start: '09:00', end: '10:00' }],
      }),
    );
    const res = await settings.getSettings(
      { windowStart: '2027-03-26T00:00:00+01:00', windowEnd: '2027-03-30T00:00:00+02:00' },
      actorOf(user),
    );
    // Friday before the change is UTC+1, Monday after it UTC+2: the same local hour, one hour apart in UTC.
    expect(res.workingIntervals).toEqual([
      { start: '2027-03-26T08:00:00.000Z', end: '2027-03-26T09:00:00.000Z' },
      { start: '2027-03-29T07:00:00.000Z', end: '2027-03-29T08:00:00.000Z' },
    ]);
  });
});
