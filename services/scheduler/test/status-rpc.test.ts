import { createRpcClient, InternalAuth, type RpcClient, Server, startRpcServer, stopRpcServer } from '@routinely/grpc';
import { scheduler_v1, scheduler_v1_status } from '@routinely/proto';
import type { TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Harness, INTERNAL_SECRET, ok, startHarness } from './harness.js';

let h: Harness;
let server: Server;
let status: RpcClient<typeof scheduler_v1_status.StatusServiceService>;
let quota: RpcClient<typeof scheduler_v1.QuotaServiceService>;

beforeAll(async () => {
  h = await startHarness({
    OPENAI_API_KEY: 'sk-test-not-a-real-key',
    LLM_PRICES: JSON.stringify({ 'test-model': { input: 1, output: 2 } }),
  });
  server = new Server();
  h.service.addGrpc?.(server);
  const address = await startRpcServer(server, '127.0.0.1', 0);
  const auth = new InternalAuth(INTERNAL_SECRET, 'task');
  status = createRpcClient(scheduler_v1_status.StatusServiceService, address, auth);
  quota = createRpcClient(scheduler_v1.QuotaServiceService, address, auth);
});
afterAll(async () => {
  status?.close();
  quota?.close();
  if (server) await stopRpcServer(server);
  await h?.close();
});

const as = (u: TestUser, permissions: string[] = u.permissions) => ({
  actor: { tenantId: u.tenantId, userId: u.userId, permissions },
});

describe('scheduler.v1 StatusService', () => {
  it("GetDailySummary answers the settings timezone, its local date and the day's spend to SERVICE_TASK_READ", async () => {
    const user = h.tokens.user();
    await ok(await call(h, user, 'PATCH', '/service/settings/me', { timezone: 'Pacific/Kiritimati' }));
    await quota.recordUsage(
      {
        runId: '',
        provider: 'openai',
        model: 'test-model',
        inputTokens: 1_000_000,
        outputTokens: 500_000,
        reservationId: '',
      },
      as(user, ['SERVICE_SCHEDULE_RUN']),
    );
    const today = await ok(await call(h, user, 'GET', '/service/llm/usage/today'));
    const answer = await status.getDailySummary({}, as(user, ['SERVICE_TASK_READ']));
    expect(answer).toEqual({ timezone: 'Pacific/Kiritimati', date: today.date, spendUsd: today.total_usd });
    expect(answer.spendUsd).toBeGreaterThan(0);
    await expect(status.getDailySummary({}, as(user, ['SERVICE_SCHEDULE_RUN']))).rejects.toMatchObject({
      code: 'forbidden',
    });
  });

  it("GetModelRegistryStatus lists the providers with the last call of the caller's tenant, from the ledger or a reported failure", async () => {
    const admin = h.tokens.user({ roles: ['admin'] });
    // A call of the administrator's tenant, recorded in the ledger as a successful call is.
    const member = h.tokens.user({ tenantId: admin.tenantId });
    await quota.recordUsage(
      { runId: '', provider: 'openai', model: 'test-model', inputTokens: 10, outputTokens: 5, reservationId: '' },
      as(member, ['SERVICE_SCHEDULE_RUN']),
    );
    const before = await status.getModelRegistryStatus({}, as(admin));
    const openai = () => before.providers.find((p) => p.name === 'openai');
    expect(openai()).toMatchObject({ available: true, lastOutcome: 'ok', lastError: '' });
    expect(before.providers.find((p) => p.name === 'anthropic')).toMatchObject({ available: false, lastOutcome: '' });

    h.clock.advance(1_000);
    h.service.domain.outcomes.report(admin.tenantId, 'openai', 'error', 'timeout');
    const after = await status.getModelRegistryStatus({}, as(admin));
    expect(after.providers.find((p) => p.name === 'openai')).toMatchObject({
      lastOutcome: 'error',
      lastError: 'timeout',
      lastCallAt: h.clock.now().toISOString(),
    });
    // Another tenant's administrator sees neither that failure nor the ledger's calls of this tenant.
    const elsewhere = await status.getModelRegistryStatus({}, as(h.tokens.user({ roles: ['admin'] })));
    expect(elsewhere.providers.find((p) => p.name === 'openai')).toMatchObject({
      available: true,
      lastOutcome: '',
      lastCallAt: '',
      lastError: '',
    });
    await expect(status.getModelRegistryStatus({}, as(h.tokens.user()))).rejects.toMatchObject({ code: 'forbidden' });
  });
});
