import { describe, expect, it } from 'vitest';
import { BURST, drainInBursts } from './bursts.js';

/** A source that, like a stopped JetStream iterator, keeps yielding what it buffered until it runs out. */
async function* buffered(count: number) {
  for (let i = 0; i < count; i++) yield i;
}

describe('drainInBursts', () => {
  it('hands over what queued while the handler was busy, in order, at most BURST at a time', async () => {
    const bursts: number[][] = [];
    await drainInBursts(
      buffered(200),
      async (burst) => {
        bursts.push(burst);
        await new Promise((resolve) => setTimeout(resolve, 5));
      },
      () => false,
    );
    expect(bursts.flat()).toEqual([...Array(200).keys()]);
    expect(Math.max(...bursts.map((b) => b.length))).toBeLessThanOrEqual(BURST);
    expect(bursts.length).toBeLessThan(200);
  });

  it('ends when stopped even though the source still yields buffered items, starting no further burst', async () => {
    let stopping = false;
    const bursts: number[][] = [];
    await drainInBursts(
      buffered(1_000),
      async (burst) => {
        bursts.push(burst);
        stopping = true;
      },
      () => stopping,
    );
    expect(bursts).toHaveLength(1);
  });
});
