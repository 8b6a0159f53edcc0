import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// Not the testkit's index: the tier's global setup (global-setup.ts) starts a server too, and cannot load vitest's expect.
import { waitFor } from '@routinely/testkit/wait';
import { freePort } from '../../src/ports.js';

// Throwaway NATS and PostgreSQL servers for the faults that kill them: the shared local servers serve other
// test runs, so they are never touched.

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => resolve(true)).once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  }).finally(() => undefined);

const waitForPort = (port: number) =>
  waitFor(() => answers(port), { what: `an answer on port ${port}`, timeoutMs: 60_000, intervalMs: 100 });

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

/** The newest PostgreSQL server binaries of the machine, if any. */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

/** A PostgreSQL cluster of its own (initdb) on a free port, run as the postgres user when this is root. */
export async function startPostgres(bin: string, options: { maxConnections?: number } = {}) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'faults-pg-'));
  const asRoot = process.getuid?.() === 0;
  const ids = asRoot ? execFileSync('id', ['-u', 'postgres']).toString().trim() : undefined;
  if (asRoot && ids) chownSync(dir, Number(ids), Number(execFileSync('id', ['-g', 'postgres']).toString().trim()));
  const run = (command: string, args: string[]) =>
    execFileSync(
      asRoot ? 'runuser' : join(bin, command),
      asRoot ? ['-u', 'postgres', '--', join(bin, command), ...args] : args,
      {
        stdio: 'ignore',
      },
    );
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync']);
  const start = async () => {
    // After a kill -9 the old backends may still hold shared memory for a moment: try again until it starts.
    for (let attempt = 0; ; attempt++) {
      try {
        run('pg_ctl', [
          'start',
          '-w',
          '-D',
          data,
          '-l',
          join(dir, 'log'),
          '-o',
          `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=${options.maxConnections ?? 100}`,
        ]);
        break;
      } catch (error) {
        if (attempt >= 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
    await waitForPort(port);
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    /** SIGKILL to the postmaster: a crash, recovered from the WAL at the next start. */
    kill: async () => {
      const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGKILL');
      while (await answers(port)) await new Promise((resolve) => setTimeout(resolve, 100));
    },
    start,
    close: async () => {
      try {
        run('pg_ctl', ['stop', '-m', 'immediate', '-D', data]);
      } catch {
        // already down
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
