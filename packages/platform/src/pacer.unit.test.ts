import { describe, expect, it, vi } from 'vitest';
import { systemClock } from './clock.js';
import { createLogger } from './logger.js';
import { Pacer } from './pacer.js';

/** A pass that records when it began and ends only when the test releases it. */
function heldPasses() {
  const log: string[] = [];
  const release: (() => void)[] = [];
  let count = 0;
  const pass = async () => {
    const n = ++count;
    log.push(`begin ${n}`);
    await new Promise<void>((resolve) => release.push(resolve));
    log.push(`end ${n}`);
    return { more: false, nextAt: null };
  };
  /** Waits until a pass is held, then lets it end. */
  const endNext = async () => {
    await vi.waitFor(() => expect(release).not.toHaveLength(0));
    release.shift()?.();
  };
  return { pass, log, endNext };
}

const pacerOf = (pass: () => Promise<{ more: boolean; nextAt: null }>) =>
  new Pacer('test', pass, systemClock, 60_000, createLogger({ level: 'silent' }));

describe('Pacer.wakeAndWait', () => {
  it('resolves after a pass that began after the call, not the one already running', async () => {
    const passes = heldPasses();
    const pacer = pacerOf(passes.pass);
    pacer.start();
    await vi.waitFor(() => expect(passes.log).not.toHaveLength(0));
    // Pass 1 is running: it may have looked before the caller's work existed.
    const waited: string[] = [];
    const done = pacer.wakeAndWait().then(() => waited.push([...passes.log].join(', ')));
    await passes.endNext();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(waited).toEqual([]);
    await passes.endNext();
    await done;
    expect(waited).toEqual(['begin 1, end 1, begin 2, end 2']);
    await pacer.stop();
  });

  it('resolves at once when the pacer is stopped, and releases waiters when it stops', async () => {
    const passes = heldPasses();
    const pacer = pacerOf(passes.pass);
    await expect(pacer.wakeAndWait()).resolves.toBeUndefined();
    expect(passes.log).toEqual([]);

    pacer.start();
    await vi.waitFor(() => expect(passes.log).not.toHaveLength(0));
    const waiting = pacer.wakeAndWait();
    const stopped = pacer.stop();
    await passes.endNext();
    await Promise.all([waiting, stopped]);
    expect(passes.log).toEqual(['begin 1', 'end 1']);
  });
});
