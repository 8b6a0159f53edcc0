import { describe, expect, it } from 'vitest';
import { judgeWorker, overall, staleAfterMs } from './health-rules.js';

const worker = (lastTickAgeMs: number, intervalMs = 1_000, running = true) => ({
  name: 'reminders',
  running,
  intervalMs,
  lastTickAgeMs,
});

describe('worker rule', () => {
  it('is stale after three intervals, never sooner than 60 s', () => {
    expect(staleAfterMs(1_000)).toBe(60_000);
    expect(staleAfterMs(300_000)).toBe(900_000);
  });

  it('judges a running worker by the age of its last pass', () => {
    expect(judgeWorker(worker(59_000)).status).toBe('ok');
    expect(judgeWorker(worker(61_000)).status).toBe('degraded');
    expect(judgeWorker(worker(899_000, 300_000)).status).toBe('ok');
    expect(judgeWorker(worker(901_000, 300_000)).status).toBe('degraded');
  });

  it('calls a worker that is not running degraded whatever its age', () => {
    expect(judgeWorker(worker(0, 1_000, false))).toMatchObject({ status: 'degraded', detail: /not running/ });
  });
});

describe('overall rule', () => {
  const ok = { status: 'ok' as const };
  it('is down only when the database is down', () => {
    expect(overall({ database: { status: 'down' }, cache: ok })).toBe('down');
    expect(overall({ database: ok, model_registry: { status: 'down' } })).toBe('degraded');
    expect(overall({ database: ok, reminder_worker: { status: 'degraded' } })).toBe('degraded');
    expect(overall({ database: ok, cache: ok })).toBe('ok');
  });
});
