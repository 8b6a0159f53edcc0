import { withAdvisoryLock } from '@routinely/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlacementLock } from '../src/domain/placement-lock.js';
import { type Harness, startHarness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

/** A replica's lock, on the lock pool of the service's database as app.ts makes it. */
const placementLock = () => new PlacementLock((key, work) => withAdvisoryLock(h.orm, key, work));

const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('PlacementLock', () => {
  it("serialises one user's sections across two instances (two replicas) and frees the lock when one throws", async () => {
    const replicas = [placementLock(), placementLock()];
    const user = h.tokens.user().userId;
    const log: string[] = [];
    const section = async (name: string, fail: boolean) => {
      log.push(`${name}:in`);
      await pause();
      log.push(`${name}:out`);
      if (fail) throw new Error(`${name} failed`);
      return name;
    };
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        (replicas[i % 2] as PlacementLock).run(user, () => section(`s${i}`, i % 5 === 0)),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(3);
    // Every section left before the next one came in: no two ever overlapped.
    for (let i = 0; i < log.length; i += 2) {
      expect(log[i]?.endsWith(':in')).toBe(true);
      expect(log[i + 1]).toBe(log[i]?.replace(':in', ':out'));
    }
    expect(log).toHaveLength(24);
  });

  it('lets different users place at the same time', async () => {
    const lock = placementLock();
    const [a, b] = [h.tokens.user().userId, h.tokens.user().userId];
    // Each section waits inside its lock for the other user's to come in: serialised, neither would.
    let arrived = 0;
    let bothInside!: () => void;
    const met = new Promise<void>((resolve) => {
      bothInside = resolve;
    });
    const section = async () => {
      arrived += 1;
      if (arrived === 2) bothInside();
      const waited = await Promise.race([
        met.then(() => 'met'),
        new Promise((resolve) => setTimeout(resolve, 10_000, 'alone')),
      ]);
      return waited;
    };
    expect(await Promise.all([lock.run(a, section), lock.run(b, section)])).toEqual(['met', 'met']);
  });
});
