import { describe, expect, it } from 'vitest';
import { backgroundOf } from './background.js';
import { ManualClock } from './clock.js';
import { createLogger } from './logger.js';
import { renderMetrics } from './metrics.js';
import { defineWorker, observeWorkers } from './worker.js';

const logger = createLogger({ level: 'silent' });

describe('defineWorker', () => {
  it('runs passes on wake, beats after each that succeeds, and publishes the age as a metric', async () => {
    const clock = new ManualClock('2026-11-27T08:00:00.000Z');
    let passes = 0;
    const worker = defineWorker(
      {
        name: 'sends',
        pollMs: 60_000,
        pass: async () => {
          passes += 1;
          return { more: false, nextAt: null };
        },
      },
      { clock, logger },
    );
    expect(worker.beat()).toMatchObject({ name: 'sends', running: false, lastTickAgeMs: -1 });
    const unobserve = observeWorkers('demo', [worker]);
    try {
      worker.start();
      await worker.wakeAndWait();
      expect(passes).toBeGreaterThanOrEqual(1);
      clock.advance(4_000);
      expect(worker.beat()).toMatchObject({ running: true, lastTickAgeMs: 4_000 });
      const { body } = await renderMetrics();
      expect(body).toContain('routinely_worker_last_pass_age_seconds{service="demo",worker="sends"} 4');
      await worker.stop();
      expect(worker.beat().running).toBe(false);
      expect((await renderMetrics()).body).toContain(
        'routinely_worker_last_pass_age_seconds{service="demo",worker="sends"} -1',
      );
    } finally {
      unobserve();
      await worker.stop();
    }
  });
});

describe('backgroundOf', () => {
  it('starts the parts in order and stops them in reverse', async () => {
    const log: string[] = [];
    const part = (name: string) => ({
      start: async () => void log.push(`start ${name}`),
      stop: async () => void log.push(`stop ${name}`),
    });
    const lifecycle = backgroundOf([part('relay'), { stop: () => log.push('close client') }, part('consumers')]);
    await lifecycle.start();
    await lifecycle.stop();
    expect(log).toEqual(['start relay', 'start consumers', 'stop consumers', 'close client', 'stop relay']);
  });
});
