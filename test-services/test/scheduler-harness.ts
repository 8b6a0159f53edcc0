import { authEvents, type EventTransport, makeEvent } from '@routinely/events';
import type { ManualClock, ServiceName } from '@routinely/platform';
import { type SchedulerServiceDeps, schedulerModule } from '@routinely/scheduler';
import { type ServiceHarness, startServiceHarness, type TestUser } from '@routinely/testkit';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { INTERNAL_SECRET, NO_PEER } from './internal.js';

export type Harness = ServiceHarness<
  Parameters<typeof schedulerModule.build>[0],
  SchedulerServiceDeps,
  Awaited<ReturnType<typeof schedulerModule.build>>,
  ManualClock
>;

/** The scheduler from its module on a fresh database, with a clock the test moves. */
export function startSchedulerHarness(
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
    // Without a task service nobody acknowledges a timezone change: PATCH /settings/me answers without waiting.
    env: {
      SCHEDULER_OUTBOX_POLL_MS: '20',
      ...(options.grpcAddresses?.task ? {} : { SCHEDULER_SETTINGS_WAIT_MS: '0' }),
      ...env,
    },
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

/**
 * Tells the scheduler about a user as auth does: its registered event on the scheduler's transport, handled by
 * the time this answers (every service on that transport learns the user, as in a deployment).
 */
export async function knowUser(
  h: Harness,
  user: TestUser,
  profile: { email?: string; timezone?: string | null } = {},
): Promise<TestUser> {
  const event = makeEvent(
    authEvents.userRegistered,
    { tenantId: user.tenantId, userId: user.userId, at: h.clock.now() },
    {
      user: {
        id: user.userId,
        tenant_id: user.tenantId,
        email: profile.email ?? `${user.userId}@example.test`,
        name: null,
        timezone: profile.timezone ?? null,
        is_active: true,
      },
    },
  );
  await h.transport.publish(event);
  await h.transport.whenHandled?.(event.id);
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
