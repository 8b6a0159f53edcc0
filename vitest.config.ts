// The one vitest configuration of the repository: every package's tests are projects of it, run in one vitest
// process per tier (`npm run test:unit`, `test:integration`, `test:e2e`, `test:faults`; `npm test` runs them in
// turn). A tier is a file-name suffix, so a test says what it needs where it is named:
//   *.unit.test.ts   no infrastructure at all (no database, NATS or Redis URL is even set)
//   *.test.ts        integration: real PostgreSQL, NATS JetStream and Redis (the testkit's global setup)
//   *.e2e.test.ts    the product from outside: the six services behind the gateway, or an all-in-one, on a
//                    PostgreSQL cluster of the tier's own
//   test/faults/**   the fault tier: each file boots its own topology and breaks it, one file at a time, on a
//                    PostgreSQL cluster of the tier's own (`npm test` runs it beside the other tiers)
// Tests import workspace packages from their TypeScript sources (the "source" export condition), so a run
// never depends on stale build output.
import { defineConfig } from 'vitest/config';

const conditions = ['source', 'module', 'node', 'development|production'];
const here = (path: string) => new URL(path, import.meta.url).pathname;

const WORKSPACES = ['packages/*', 'services/*', 'apps/*', 'deploy', 'test-services'];
const inWorkspaces = (pattern: string) => WORKSPACES.map((w) => `${w}/${pattern}`);
const FAULTS = 'apps/distributed/test/faults/**';
/** The fault tier's PostgreSQL cluster of its own (it runs beside the other tiers under `npm test`). */
const FAULTS_POSTGRES = here('./apps/distributed/test/faults/global-setup.ts');

/** One seed rule for fast-check in every tier (testkit/src/fast-check-seed.ts). */
const FAST_CHECK_SEED = here('./packages/testkit/src/fast-check-seed.ts');
/** Makes DATABASE_URL, REDIS_URL and NATS_URL point at real servers (environment, local ports, containers). */
const INFRASTRUCTURE = here('./packages/testkit/src/global-setup.ts');
/** Lets a worker read the main process's answers between tests (testkit/src/let-worker-answer.ts). */
const LET_WORKER_ANSWER = here('./packages/testkit/src/let-worker-answer.ts');

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    pool: 'forks',
    maxWorkers: 2,
    hookTimeout: 60_000,
    // A worker runs its files one after another on the modules it has already loaded instead of importing every
    // service again for each file: the integration tier's import time fell from 507 s to 13 s (summed over
    // workers) and its wall time from about 5 min to 2 min. Tests own their state (a fresh database, stream
    // namespace and key space per harness), so nothing depends on a fresh module registry.
    isolate: false,
    exclude: ['**/node_modules/**', '**/dist/**'],
    // The JSON report of each tier feeds the one-line total that `npm test` prints at the end.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: inWorkspaces('{src,test}/**/*.unit.test.ts'),
          setupFiles: [FAST_CHECK_SEED, LET_WORKER_ANSWER, here('./packages/testkit/src/no-infrastructure.ts')],
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: inWorkspaces('{src,test}/**/*.test.ts'),
          exclude: ['**/node_modules/**', '**/dist/**', '**/*.unit.test.ts', '**/*.e2e.test.ts', FAULTS],
          globalSetup: [INFRASTRUCTURE],
          setupFiles: [FAST_CHECK_SEED, LET_WORKER_ANSWER],
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test-e2e/test/**/*.e2e.test.ts'],
          // In-process all-in-ones of several files in one registry answered a 500 (a stranger's read of a synced
          // event in unified-calendar.e2e; ADR 009), so each file gets a fresh registry.
          isolate: true,
          // A PostgreSQL cluster of the tier's own (more connection slots than the shared server's 100).
          globalSetup: [
            INFRASTRUCTURE,
            here('./test-e2e/src/postgres-setup.ts'),
            here('./test-e2e/src/distributed-setup.ts'),
          ],
          setupFiles: [FAST_CHECK_SEED, LET_WORKER_ANSWER],
          testTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'faults',
          include: [`${FAULTS}/*.test.ts`],
          globalSetup: [INFRASTRUCTURE, FAULTS_POSTGRES],
          setupFiles: [LET_WORKER_ANSWER],
          testTimeout: 240_000,
        },
      },
    ],
  },
});
