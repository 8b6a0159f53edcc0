import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// Not the testkit's index: the tier's global setup (global-setup.ts) starts a server too, and cannot load vitest's expect.
import { postgresBin, startPostgresCluster, waitForPort } from '@routinely/testkit/postgres-cluster';
import { freePort } from '../../src/ports.js';

export { postgresBin };

// Throwaway NATS and PostgreSQL servers for the faults that kill them: the shared local servers serve other
// test runs, so they are never touched.

/** Where Debian (/usr/sbin) or Ubuntu's package (/usr/bin) put nats-server; undefined when neither has it. */
export const NATS_SERVER = ['/usr/sbin/nats-server', '/usr/bin/nats-server'].find((path) => existsSync(path));

/** nats-server with JetStream on a free port; its store survives a kill, as a volume would. */
export async function startNats() {
  const port = await freePort();
  const store = mkdtempSync(join(tmpdir(), 'faults-nats-'));
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(NATS_SERVER ?? 'nats-server', ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', store], {
      stdio: 'ignore',
    });
    await waitForPort(port);
  };
  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    kill: async () => {
      const exited = once(child as ChildProcess, 'exit');
      child?.kill('SIGKILL');
      await exited;
    },
    start,
    close: async () => {
      child?.kill('SIGKILL');
      rmSync(store, { recursive: true, force: true });
    },
  };
}

/** A PostgreSQL cluster of its own (initdb) on a free port. */
export const startPostgres = async (bin: string, options: { maxConnections?: number } = {}) =>
  startPostgresCluster(bin, { ...options, port: await freePort() });
