import type { Sql } from '@routinely/db';
import { RECENT_DEAD_LETTER_MS, recentDeadLetters } from '@routinely/events';
import type { Clock } from '@routinely/platform';
import type { Actor, DashboardPeers, DeadLetterReport, WorkerReport } from '../../adapters/dashboard-peers.js';
import {
  CONFIGURED,
  type ProviderStatusRow,
  providerStatuses,
  schedulerDeadLettersSince,
} from '../../db/scheduler-copies-sql.js';
import { type HealthStatus, judgeWorker, overall, worst } from './health-rules.js';

/** What the cache component needs of Redis; absent when the process keeps its counters in memory. */
export interface CachePing {
  ping(): Promise<unknown>;
}

/** What a probe found: a status, words for people, and the component's own figures. */
interface ComponentBody {
  status: HealthStatus;
  detail?: string;
  [extra: string]: unknown;
}

type Component = ComponentBody & { latency_ms?: number };

type Settled<T> = { ok: true; value: T; latencyMs: number } | { ok: false; error: unknown; latencyMs: number };

/** Runs a probe and times it; latency is a measurement of this process (the monotonic clock, not domain time). */
async function settle<T>(probe: () => Promise<T>): Promise<Settled<T>> {
  const started = performance.now();
  const latencyMs = () => Math.round((performance.now() - started) * 10) / 10;
  try {
    const value = await probe();
    return { ok: true, value, latencyMs: latencyMs() };
  } catch (error) {
    return { ok: false, error, latencyMs: latencyMs() };
  }
}

/** A component from a settled probe: `judge` reads an answer, `onError` says what a failure means. */
function component<T>(
  settled: Settled<T>,
  judge: (value: T) => ComponentBody,
  onError: (error: unknown) => ComponentBody,
): Component {
  const body = settled.ok ? judge(settled.value) : onError(settled.error);
  return { ...body, latency_ms: settled.latencyMs };
}

/** A probe that does not settle within `ms` fails (a Redis client may queue a command while it reconnects). */
function within<T>(ms: number, probe: () => Promise<T>): () => Promise<T> {
  return () =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timeout')), ms);
      probe().then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
}

const unreachable = (service: string) => (error: unknown) => ({
  status: 'down' as const,
  detail: `${service} did not answer (${(error as { code?: string } | undefined)?.code ?? 'error'})`,
});

function workers(reports: readonly WorkerReport[], names: readonly string[]): Component {
  const wanted = names.map((name) => reports.find((r) => r.name === name));
  const judged = wanted.map((w, i) =>
    w ? judgeWorker(w) : { status: 'degraded' as const, detail: `${names[i]}: not reported` },
  );
  return {
    status: worst(judged.map((j) => j.status)),
    detail: judged.map((j) => j.detail).join('; '),
    workers: wanted.flatMap((w) =>
      w ? [{ name: w.name, running: w.running, interval_ms: w.intervalMs, last_tick_age_ms: w.lastTickAgeMs }] : [],
    ),
  };
}

type IntegrationHealth = Awaited<ReturnType<DashboardPeers['integrationHealth']>>;

/**
 * The scheduler's providers as its events reported them (ADR 056): the configured ones (`builtin` is always
 * there) with the tenant's last call of each. A configured language-model provider whose last call failed
 * degrades the registry; so does a scheduler that has not reported its configuration yet.
 */
function modelRegistry(rows: readonly ProviderStatusRow[], tenantId: string): ComponentBody {
  const configured = rows.filter((r) => r.tenant_id === CONFIGURED);
  if (configured.length === 0) {
    return { status: 'degraded', detail: 'no scheduler has reported its model registry yet', providers: [] };
  }
  const lastCall = new Map(rows.filter((r) => r.tenant_id === tenantId).map((r) => [r.provider, r]));
  const providers = configured.map((c) => {
    const last = lastCall.get(c.provider);
    return {
      name: c.provider,
      model: c.model ?? '',
      available: c.available ?? false,
      last_outcome: last?.last_outcome ?? null,
      last_call_at: last ? last.at.toISOString() : null,
      last_error: last?.last_error ?? null,
    };
  });
  const failing = providers.filter((p) => p.available && p.last_outcome === 'error').map((p) => p.name);
  return {
    status: failing.length ? 'degraded' : 'ok',
    detail: failing.length
      ? `last call failed: ${failing.join(', ')}`
      : `${providers.filter((p) => p.available).length} of ${providers.length} providers configured`,
    providers,
  };
}

/** A push channel that expired without renewal means the renewal is failing (polling still covers the data). */
function integrationCounts(h: IntegrationHealth): ComponentBody {
  const failing = h.writeBackFailing > 0 ? `; ${h.writeBackFailing} calendar write-back(s) failing` : '';
  return {
    status: h.channelsExpired > 0 || h.writeBackFailing > 0 ? 'degraded' : 'ok',
    detail:
      (h.channelsExpired > 0
        ? `${h.channelsExpired} push channel(s) expired without renewal`
        : `${h.channelsNearExpiry} push channel(s) near expiry`) + failing,
    counts: Object.fromEntries(h.byStatus.map((c) => [c.status, c.count])),
    channels_near_expiry: h.channelsNearExpiry,
    channels_expired: h.channelsExpired,
    write_back_failing: h.writeBackFailing,
  };
}

type Letters = { consumer: string; type: string; count: number; lastAt: Date | string }[];

/**
 * The event consumers of every service (ADR 029): `degraded` while any of them stored a dead letter in the last
 * hour (the task service's own, delivery's and integration's as their health RPCs answer, the scheduler's as its
 * events reported them). A peer that did not answer is named; its own component already says it is down.
 */
function eventConsumers(sources: { service: string; letters: Settled<Letters> | null }[]): ComponentBody {
  const unknown = sources.filter((s) => s.letters && !s.letters.ok).map((s) => s.service);
  const letters = sources.flatMap((s) => (s.letters?.ok ? s.letters.value : []));
  const deadLetters = letters.map((l) => ({
    consumer: l.consumer,
    type: l.type,
    count: l.count,
    last_at: new Date(l.lastAt).toISOString(),
  }));
  const silent = unknown.length ? `; not answered: ${unknown.join(', ')}` : '';
  return {
    status: deadLetters.length > 0 ? 'degraded' : 'ok',
    detail:
      deadLetters.length > 0
        ? `dead letters in the last hour: ${deadLetters.map((l) => `${l.consumer} (${l.type}) x${l.count}`).join(', ')}${silent}`
        : `no dead letters in the last hour${silent}`,
    dead_letters: deadLetters,
  };
}

const settledPart = <T, U>(settled: Settled<T>, part: (value: T) => U): Settled<U> =>
  settled.ok ? { ...settled, value: part(settled.value) } : settled;

/** The administrators' health page (ADR 026): every component probed at once. */
export class AdminHealth {
  constructor(
    private readonly db: Sql,
    private readonly peers: DashboardPeers,
    private readonly cache: CachePing | undefined,
    private readonly probeTimeoutMs: number,
    private readonly clock: Clock,
  ) {}

  async check(actor: Actor) {
    const cache = this.cache;
    const now = this.clock.now();
    const [database, ping, registry, integration, delivery, ownLetters, schedulerLetters] = await Promise.all([
      settle(within(this.probeTimeoutMs, () => this.db.run('select 1'))),
      cache ? settle(within(this.probeTimeoutMs, () => cache.ping())) : Promise.resolve(null),
      settle(() => providerStatuses(this.db, actor.tenantId)),
      settle(() => this.peers.integrationHealth(actor)),
      settle(() => this.peers.deliveryWorkers(actor)),
      settle(() => recentDeadLetters(this.db, now)),
      settle(() => schedulerDeadLettersSince(this.db, new Date(now.getTime() - RECENT_DEAD_LETTER_MS))),
    ]);
    const peerLetters = (reply: { recentDeadLetters?: DeadLetterReport[] }) => reply.recentDeadLetters ?? [];
    const components = {
      database: component(
        database,
        () => ({ status: 'ok' }),
        () => ({ status: 'down', detail: 'the task database did not answer' }),
      ),
      cache: ping
        ? component(
            ping,
            () => ({ status: 'ok', detail: 'redis' }),
            () => ({ status: 'degraded', detail: 'redis did not answer' }),
          )
        : ({ status: 'ok', detail: 'in-process (no REDIS_URL): counters live in this process' } as Component),
      model_registry: component(
        registry,
        (rows) => modelRegistry(rows, actor.tenantId),
        () => ({ status: 'down', detail: 'the task database did not answer' }),
      ),
      integrations: component(integration, integrationCounts, unreachable('integration')),
      reminder_worker: component(delivery, (d) => workers(d.workers, ['reminders']), unreachable('delivery')),
      calendar_worker: component(
        integration,
        (i) => workers(i.workers, ['sync', 'channels']),
        unreachable('integration'),
      ),
      event_consumers: component(
        ownLetters,
        () =>
          eventConsumers([
            { service: 'task', letters: ownLetters },
            { service: 'delivery', letters: settledPart(delivery, peerLetters) },
            { service: 'integration', letters: settledPart(integration, peerLetters) },
            { service: 'scheduler', letters: schedulerLetters },
          ]),
        () => ({ status: 'down', detail: 'the task database did not answer' }),
      ),
    };
    return { status: overall(components), components };
  }
}
