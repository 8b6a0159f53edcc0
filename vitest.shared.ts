// One vitest setup for every workspace package: tests import workspace packages from their TypeScript
// sources (the "source" export condition), so a test run never depends on stale build output.
import { defineConfig } from 'vitest/config';

/** The setup file of packages with property tests: one seed rule for fast-check (testkit/src/fast-check-seed.ts). */
export const FAST_CHECK_SEED_SETUP = new URL('./packages/testkit/src/fast-check-seed.ts', import.meta.url).pathname;

export function defineProject(
  overrides: {
    testTimeout?: number;
    setupFiles?: string[];
    globalSetup?: string[];
    outputFile?: string;
    fileParallelism?: boolean;
    include?: string[];
  } = {},
) {
  const conditions = ['source', 'module', 'node', 'development|production'];
  return defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions } },
    test: {
      include: overrides.include ?? ['src/**/*.test.ts', 'test/**/*.test.ts'],
      testTimeout: overrides.testTimeout ?? 30_000,
      hookTimeout: 60_000,
      globalSetup: [
        new URL('./packages/testkit/src/global-setup.ts', import.meta.url).pathname,
        ...(overrides.globalSetup ?? []),
      ],
      setupFiles: overrides.setupFiles ?? [],
      pool: 'forks',
      fileParallelism: overrides.fileParallelism ?? true,
      maxWorkers: 2,
      // The JSON report feeds the one-line total that `npm test` prints at the end.
      reporters: ['default', 'json'],
      outputFile: { json: overrides.outputFile ?? 'test-results/vitest.json' },
    },
  });
}
