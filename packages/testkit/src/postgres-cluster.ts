import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './wait.js';

/**
 * Throwaway PostgreSQL clusters (initdb) for the tiers whose processes would take the shared server's connection
 * slots (ADR 009): the fault tier, which runs beside the others and kills its server, and the e2e tier, whose
 * gateway topology and in-process all-in-ones hold about a hundred connections between them. A global setup may
 * load this module (it does not load vitest's expect).
 */

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => resolve(true)).once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  }).finally(() => undefined);

export const waitForPort = (port: number) =>
  waitFor(() => answers(port), { what: `an answer on port ${port}`, timeoutMs: 60_000, intervalMs: 100 });

/** The newest PostgreSQL server binaries of the machine, if any. */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

export type PostgresCluster = Awaited<ReturnType<typeof startPostgresCluster>>;

/**
 * A cluster of its own on `port` (trust auth, fsync off), run as the postgres user when this is root. The caller
 * picks the port (`freePort` of @routinely/distributed keeps ports of parallel runs apart).
 */
export async function startPostgresCluster(bin: string, options: { port: number; maxConnections?: number }) {
  const { port } = options;
  const dir = mkdtempSync(join(tmpdir(), 'routinely-pg-'));
  const asRoot = process.getuid?.() === 0;
  const ids = asRoot ? execFileSync('id', ['-u', 'postgres']).toString().trim() : undefined;
  if (asRoot && ids) chownSync(dir, Number(ids), Number(execFileSync('id', ['-g', 'postgres']).toString().trim()));
  const run = (command: string, args: string[]) =>
    execFileSync(
      asRoot ? 'runuser' : join(bin, command),
      asRoot ? ['-u', 'postgres', '--', join(bin, command), ...args] : args,
      { stdio: 'ignore' },
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
