import type fc from 'fast-check';

/**
 * fast-check parameters: `numRuns` runs from the run's seed (the one rule of testkit's fast-check-seed.ts, set
 * up for this package: FC_SEED, else a fixed seed in CI, else a fresh one), or from `seed` when a test pins one
 * (a regression case).
 */
export function seeded<T>(numRuns: number, seed?: number): fc.Parameters<T> {
  return seed === undefined ? { numRuns } : { numRuns, seed };
}
