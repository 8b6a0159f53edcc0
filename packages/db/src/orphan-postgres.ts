import { existsSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { processState } from './process-state.js';

/**
 * What an earlier start of this data folder left in `postmaster.pid`, made safe for the next start:
 * - its PostgreSQL still running (the node process was killed outright, the cluster orphaned): asked for a fast
 *   shutdown (SIGINT: roll back open transactions, checkpoint, exit) and waited for;
 * - a pid file whose process exited but was not reaped yet, or whose pid another program has now (pid reuse
 *   after a reboot or a container restart): PostgreSQL takes either for a live postmaster and refuses, so the
 *   file is removed, but only once no process is attached to the shared memory it names (PostgreSQL's own
 *   interlock against old backends still running);
 * - a postmaster or backends still exiting (a kill -9 of the whole process group a moment ago): the caller
 *   retries the start while PostgreSQL says so (`embedded.ts`).
 */
export async function stopOrphanedPostgres(
  databaseDir: string,
  options: { timeoutMs?: number; onLog?: (message: string) => void } = {},
): Promise<'none' | 'stale' | 'stopped'> {
  const pidFile = join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return 'none';
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  let state = processState(pid).is;
  const orphan = state === 'running' && isPostgresOf(pid, lines[1] ?? '', databaseDir);
  if (orphan) {
    options.onLog?.(`stopping PostgreSQL ${pid} left running by an earlier start of this data folder`);
    process.kill(pid, 'SIGINT');
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    for (; state === 'running'; state = processState(pid).is) {
      if (Date.now() > deadline) {
        throw new Error(
          `PostgreSQL (pid ${pid}) from an earlier start still holds ${databaseDir} after a fast shutdown request; ` +
            `stop it (kill ${pid}) and start again`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  // Gone: PostgreSQL sees the file as stale itself. Exited but unreaped, or another program's pid: it would not.
  if (state !== 'gone' && sharedMemoryFree(lines[6] ?? '')) {
    options.onLog?.(`removing postmaster.pid: its PostgreSQL (pid ${pid}) is no longer running`);
    rmSync(pidFile, { force: true });
  }
  return orphan ? 'stopped' : 'stale';
}

/**
 * Whether the System V segment PostgreSQL recorded (line 7 of postmaster.pid: key and id) is gone or attached by
 * no process. Unknown (no /proc/sysvipc) counts as in use: then the pid file is left for PostgreSQL to judge.
 */
function sharedMemoryFree(keyAndId: string): boolean {
  const id = keyAndId.trim().split(/\s+/)[1];
  if (!id) return true;
  let table: string;
  try {
    table = readFileSync('/proc/sysvipc/shm', 'utf8');
  } catch {
    return false;
  }
  const segment = table
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .find((columns) => columns[1] === id);
  // Columns: key shmid perms size cpid lpid nattch ...
  return segment === undefined || segment[6] === '0';
}

/** The process is a postgres whose data directory (from postmaster.pid and its command line) is ours. */
function isPostgresOf(pid: number, pidFileDir: string, databaseDir: string): boolean {
  const ours = canonical(databaseDir);
  if (canonical(pidFileDir.trim()) !== ours) return false;
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    // No /proc (macOS): the pid file naming our folder and a live process is the evidence we have.
    return true;
  }
  const args = cmdline.split('\0');
  if (!/postgres/.test(args[0] ?? '')) return false;
  const dataIndex = args.indexOf('-D');
  return dataIndex === -1 || canonical(args[dataIndex + 1] ?? '') === ours;
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
