import { startTopology } from '@routinely/distributed';
// Not the testkit's index: it carries vitest's expect, which a global setup cannot load.
import { writeConsoleFixture } from '@routinely/testkit/console-fixture';
import { TEST_RETRY_WAITS_MS, testHostEnv } from '@routinely/testkit/host-env';
import { createTestDatabase, uniqueName } from '@routinely/testkit/infra';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The gateway in front of the six service processes ('' when the suite targets something else). */
    distributedUrl: string;
    /** Each service process's own listener (probes are per process; the gateway routes none). */
    distributedProcessUrls: string[];
  }
}

/**
 * Boots the distributed topology once for the whole e2e run (six processes from their own entry points, and the
 * console's, on a fresh database, JetStream namespace and Redis key space, behind the envoy.yaml-driven gateway). Skipped when
 * E2E_BASE_URL names a deployed cluster.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.E2E_BASE_URL) {
    project.provide('distributedUrl', '');
    project.provide('distributedProcessUrls', []);
    return async () => {};
  }
  const db = await createTestDatabase();
  const topology = await startTopology({
    env: {
      ...testHostEnv(db.url, uniqueName('e2e')),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_WAITS_MS: TEST_RETRY_WAITS_MS,
      SHUTDOWN_DRAIN_MS: '0',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
      // The console process serves a console laid out as Vite builds one (the app is not built for this tier).
      CONSOLE_DIR: writeConsoleFixture().dir,
    },
    output: 'buffer',
  });
  project.provide('distributedUrl', topology.gateway.url);
  project.provide(
    'distributedProcessUrls',
    topology.replicas.map((r) => `http://127.0.0.1:${r.httpPort}`),
  );
  return async () => {
    await topology.close();
    await db.drop();
  };
}
