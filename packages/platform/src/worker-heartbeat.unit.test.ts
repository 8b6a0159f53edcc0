import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';
import { WorkerHeartbeat } from './worker-heartbeat.js';

describe('WorkerHeartbeat', () => {
  it('ages from the last pass that finished, and from the start while none has', async () => {
    const clock = new ManualClock('2026-11-21T08:00:00.000Z');
    const beat = new WorkerHeartbeat('reminders', clock, 1_000);
    expect(beat.beat()).toMatchObject({ running: false, lastTickAt: null, lastTickAgeMs: -1 });

    beat.started();
    clock.advance(5_000);
    expect(beat.beat()).toMatchObject({ running: true, lastTickAt: null, lastTickAgeMs: 5_000 });

    const pass = beat.wrap(async () => ({ more: false, nextAt: null }));
    await pass();
    clock.advance(2_000);
    expect(beat.beat()).toMatchObject({ lastTickAt: new Date('2026-11-21T08:00:05.000Z'), lastTickAgeMs: 2_000 });
  });

  it('does not count a pass that throws', async () => {
    const clock = new ManualClock('2026-11-21T08:00:00.000Z');
    const beat = new WorkerHeartbeat('sync', clock, 1_000);
    beat.started();
    const failing = beat.wrap(async () => {
      throw new Error('database gone');
    });
    clock.advance(3_000);
    await expect(failing()).rejects.toThrow('database gone');
    expect(beat.beat()).toMatchObject({ lastTickAt: null, lastTickAgeMs: 3_000 });
    beat.stopped();
    expect(beat.beat().running).toBe(false);
  });
});
