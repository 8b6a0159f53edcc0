import { existsSync, readFileSync } from 'node:fs';

/**
 * What a pid names now: nothing, a process that exited and waits to be reaped (a zombie, which kill(pid, 0) still
 * finds), or a running one with its start time (field 22 of /proc/<pid>/stat, clock ticks since boot; undefined
 * off Linux), which tells a process from a later one that got the same pid.
 */
export type ProcessState = { is: 'gone' } | { is: 'exited' } | { is: 'running'; started?: string };

export function processState(pid: number): ProcessState {
  if (!Number.isInteger(pid) || pid <= 0) return { is: 'gone' };
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to another user (the postgres user, when we do not run as root).
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return { is: 'gone' };
  }
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    // No /proc (macOS): what kill(0) said. With /proc, it went away in between.
    return existsSync('/proc/self/stat') ? { is: 'gone' } : { is: 'running' };
  }
  // After "pid (comm) " (comm may hold spaces or ')'): the state is the 1st field, the start time the 20th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X') return { is: 'exited' };
  return fields[19] ? { is: 'running', started: fields[19] } : { is: 'running' };
}
