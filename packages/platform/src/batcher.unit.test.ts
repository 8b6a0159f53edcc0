import { describe, expect, it } from 'vitest';
import { Batcher } from './batcher.js';

/** A write that records each call, waits until released, and fails any batch holding a negative item. */
function recordingWrite() {
  const calls: number[][] = [];
  const pending: (() => void)[] = [];
  let running = 0;
  let maxRunning = 0;
  const write = async (items: number[]) => {
    calls.push(items);
    running++;
    maxRunning = Math.max(maxRunning, running);
    await new Promise<void>((resolve) => pending.push(resolve));
    running--;
    if (items.some((n) => n < 0)) throw new Error(`bad item in ${items.join(',')}`);
    return items.map((n) => n * 10);
  };
  const releaseAll = async () => {
    while (pending.length > 0) {
      for (const release of pending.splice(0)) release();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { write, calls, releaseAll, maxRunning: () => maxRunning };
}

describe('Batcher', () => {
  it('starts a lone write at once and sends what queued behind the running ones together', async () => {
    const w = recordingWrite();
    const batcher = new Batcher(w.write, { maxInFlight: 2, maxBatch: 3, keyOf: () => 'one' });
    const outs = Array.from({ length: 7 }, (_, i) => batcher.submit(i + 1));
    expect(w.calls).toEqual([[1], [2]]); // the first two did not wait for anything
    await w.releaseAll();
    expect(await Promise.all(outs)).toEqual([10, 20, 30, 40, 50, 60, 70]);
    expect(w.calls).toEqual([[1], [2], [3, 4, 5], [6, 7]]);
    expect(w.maxRunning()).toBe(2);
  });

  it('puts only items of one key in a batch, the oldest key first, the others keeping their order', async () => {
    const w = recordingWrite();
    const batcher = new Batcher(w.write, {
      maxInFlight: 1,
      maxBatch: 10,
      keyOf: (n: number) => String(n % 2),
    });
    const outs = [1, 2, 3, 4, 5, 6].map((n) => batcher.submit(n));
    await w.releaseAll();
    expect(await Promise.all(outs)).toEqual([10, 20, 30, 40, 50, 60]);
    expect(w.calls).toEqual([[1], [2, 4, 6], [3, 5]]);
  });

  it('runs one statement per key at a time with onePerKey, other keys alongside', async () => {
    const w = recordingWrite();
    const batcher = new Batcher(w.write, {
      maxInFlight: 4,
      maxBatch: 10,
      keyOf: (n: number) => (n < 10 ? 'a' : 'b'),
      onePerKey: true,
    });
    const outs = [1, 2, 11, 3, 12].map((n) => batcher.submit(n));
    expect(w.calls).toEqual([[1], [11]]); // 2 and 3 wait for 1, 12 for 11
    await w.releaseAll();
    expect(await Promise.all(outs)).toEqual([10, 20, 110, 30, 120]);
    expect(w.calls).toEqual([[1], [11], [2, 3], [12]]);
    expect(w.maxRunning()).toBe(2);
  });

  it('writes each item of a failed batch alone, so only the failing one fails', async () => {
    const w = recordingWrite();
    const batcher = new Batcher(w.write, { maxInFlight: 1, maxBatch: 10, keyOf: () => 'one' });
    const first = batcher.submit(1);
    const rest = Promise.allSettled([2, -3, 4].map((n) => batcher.submit(n)));
    await w.releaseAll();
    expect(await first).toBe(10);
    const settled = await rest;
    expect(settled.map((r) => (r.status === 'fulfilled' ? r.value : 'failed'))).toEqual([20, 'failed', 40]);
    expect(w.calls).toEqual([[1], [2, -3, 4], [2], [-3], [4]]);
  });

  it('fails a lone write with its own error, and keeps going afterwards', async () => {
    const w = recordingWrite();
    const batcher = new Batcher(w.write, { maxInFlight: 1, maxBatch: 10, keyOf: () => 'one' });
    const failing = batcher.submit(-1).catch((error: Error) => error.message);
    await w.releaseAll();
    expect(await failing).toBe('bad item in -1');
    const next = batcher.submit(5);
    await w.releaseAll();
    expect(await next).toBe(50);
  });
});
