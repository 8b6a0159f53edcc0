import { Sql } from '@routinely/db';
import type { EventTransport } from '@routinely/events';
import type { ManualClock, ServiceName } from '@routinely/platform';
import { type ServiceHarness, startServiceHarness, type TestUser } from '@routinely/testkit';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { rememberUser } from '../src/events/consumers.js';
import { type SchedulerServiceDeps, schedulerModule } from '../src/index.js';

const INTERNAL_SECRET = 'test-internal-secret-of-at-least-32-chars';

/** A loopback port nothing listens on (the discard port). */
const NO_PEER = '127.0.0.1:9';

export type Harness = ServiceHarness<
  Parameters<typeof schedulerModule.build>[0],
  SchedulerServiceDeps,
  Awaited<ReturnType<typeof schedulerModule.build>>,
  ManualClock
>;

/** The scheduler from its module on a fresh database, with a clock the test moves. */
export function startHarness(
  env: Record<string, string> = {},
  options: {
    transport?: EventTransport;
    extra?: Partial<SchedulerServiceDeps>;
    clock?: ManualClock;
    /** Where the task service answers; by default a loopback port nothing listens on (no task calls). */
    grpcAddresses?: Partial<Record<ServiceName, string>>;
  } = {},
): Promise<Harness> {
  return startServiceHarness(schedulerModule, {
    // No task service here to acknowledge a timezone change: PATCH /settings/me answers without waiting (ADR 029).
    env: { SCHEDULER_OUTBOX_POLL_MS: '20', SCHEDULER_SETTINGS_WAIT_MS: '0', ...env },
    internalSecret: INTERNAL_SECRET,
    ...(options.clock ? { clock: options.clock } : {}),
    grpcAddresses: options.grpcAddresses ?? { task: NO_PEER },
    ...(options.transport ? { transport: options.transport } : {}),
    ...(options.extra ? { deps: options.extra } : {}),
  });
}

export function call(
  h: Harness,
  user: TestUser | null,
  method: InjectOptions['method'],
  path: string,
  payload?: unknown,
): Promise<LightMyRequestResponse> {
  return h.call(user, method, path, payload);
}

/** Tells the scheduler about a user the way auth's registered event does (the consumer's own write). */
export async function knowUser(
  h: Harness,
  user: TestUser,
  profile: { email?: string; timezone?: string | null } = {},
): Promise<TestUser> {
  await rememberUser(
    Sql.of(h.orm),
    {
      id: user.userId,
      tenant_id: user.tenantId,
      email: profile.email ?? `${user.userId}@example.test`,
      timezone: profile.timezone ?? null,
      is_active: true,
    },
    h.clock.now(),
  );
  return user;
}

/** Records one model call for `user` through the domain (what RecordUsage does). */
export function recordCall(
  h: Harness,
  user: TestUser,
  call: { provider?: string; model?: string; inputTokens: number; outputTokens: number },
) {
  return h.service.domain.usage.record(
    { tenantId: user.tenantId, userId: user.userId },
    {
      runId: null,
      provider: call.provider ?? 'openai',
      model: call.model ?? 'gpt-4o-mini',
      inputTokens: call.inputTokens,
      outputTokens: call.outputTokens,
      reservationId: null,
    },
  );
}

export async function ok(res: LightMyRequestResponse, status = 200) {
  expect(res.statusCode, res.body).toBe(status);
  return res.json();
}
