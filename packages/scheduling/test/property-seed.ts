/**
 * Seeds of this package's property tests. Under CI (`CI=true`) every property runs with a fixed seed, so a red
 * run is repeatable; elsewhere each run draws a fresh seed, so local runs keep exploring. `FC_SEED=<int>` replays
 * one seed everywhere. fast-check names the seed and the shrink path in its failure message
 * (`Property failed after N tests { seed: ..., path: ... }`), which is all a replay needs.
 */
import type fc from 'fast-check';

const CI_SEED = 20_261_126;

function resolveSeed(): number {
  const given = process.env.FC_SEED;
  if (given !== undefined && given !== '') {
    const seed = Number(given);
    if (!Number.isInteger(seed)) throw new Error(`FC_SEED must be an integer, got ${given}`);
    return seed;
  }
  if (process.env.CI === 'true' || process.env.CI === '1') return CI_SEED;
  // fast-check seeds are 32-bit signed integers.
  return (Math.random() * 2 ** 32) | 0;
}

/** One seed per test file run: each property gets it (different properties draw different values anyway). */
export const PROPERTY_SEED = resolveSeed();

/** fast-check parameters: `numRuns` runs from the run's seed (or `seed` when a test pins one). */
export function seeded<T>(numRuns: number, seed: number = PROPERTY_SEED): fc.Parameters<T> {
  return { numRuns, seed };
}
