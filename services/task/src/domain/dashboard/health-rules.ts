import type { WorkerReport } from '../../adapters/dashboard-peers.js';

export type HealthStatus = 'ok' | 'degraded' | 'down';

/**
 * A worker whose last finished pass is older than this many poll intervals has stopped or is wedged. A pacer
 * never sleeps longer than one interval, so three leave room for a slow pass; the floor keeps fast pollers
 * (delivery's 1 s) from flapping while one batch of sends runs.
 */
const STALE_INTERVALS = 3;
const STALE_FLOOR_MS = 60_000;

export const staleAfterMs = (intervalMs: number) => Math.max(STALE_INTERVALS * intervalMs, STALE_FLOOR_MS);

/** One worker judged by its heartbeat (ADR 026). */
export function judgeWorker(w: WorkerReport): { status: HealthStatus; detail: string } {
  if (!w.running) return { status: 'degraded', detail: `${w.name}: not running in the answering process` };
  if (w.lastTickAgeMs > staleAfterMs(w.intervalMs)) {
    return {
      status: 'degraded',
      detail: `${w.name}: last pass ${Math.round(w.lastTickAgeMs / 1000)} s ago (stale after ${Math.round(staleAfterMs(w.intervalMs) / 1000)} s)`,
    };
  }
  return { status: 'ok', detail: `${w.name}: last pass ${Math.round(w.lastTickAgeMs / 1000)} s ago` };
}

/** The worse of several statuses. */
export function worst(statuses: readonly HealthStatus[]): HealthStatus {
  if (statuses.includes('down')) return 'down';
  if (statuses.includes('degraded')) return 'degraded';
  return 'ok';
}

/**
 * The overall status: `down` when the task service's own database does not answer (nothing here can be
 * served), `degraded` when any other component is not ok (a peer that does not answer makes its component
 * `down`, the whole only `degraded`: the rest keeps working), else `ok`.
 */
export function overall(components: Record<string, { status: HealthStatus }>): HealthStatus {
  if (components.database?.status === 'down') return 'down';
  return Object.values(components).every((c) => c.status === 'ok') ? 'ok' : 'degraded';
}
