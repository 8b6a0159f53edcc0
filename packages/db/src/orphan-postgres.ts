import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';

/**
 * When the service process is killed outright (kill -9, OOM), its embedded PostgreSQL keeps running as an
 * orphan holding `postmaster.pid`, and the next start fails on the data folder's lock. The next start finds
 * that orphan (the pid file's process, checked to be a postgres serving *this* data folder), asks it for a
 * fast shutdown (SIGINT: roll back open transactions, checkpoint, exit) and waits for it to go.
 */
export async function stopOrphanedPostgres(
  databaseDir: string,
  options: { timeoutMs?: number; onLog?: (message: string) => void } = {},
): Promise<'none' | 'stale' | 'stopped'> {
  const pidFile = join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return 'none';
  const [pidLine, dirLine] = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(pidLine);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return 'stale';
  if (!isPostgresOf(pid, dirLine ?? '', databaseDir)) {
    // Another program reuses the pid: PostgreSQL itself sees the lock as stale and starts.
    return 'stale';
  }
  options.onLog?.(`stopping PostgreSQL ${pid} left running by an earlier start of this data folder`);
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  while (alive(pid)) {
    if (Date.now() > deadline) {
      throw new Error(
        `PostgreSQL (pid ${pid}) from an earlier start still holds ${databaseDir} after a fast shutdown request; ` +
          `stop it (kill ${pid}) and start again`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return 'stopped';
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user (the postgres user, when we run as root we may signal it).
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
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
