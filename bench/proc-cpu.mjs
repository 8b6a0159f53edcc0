import { readFileSync } from 'node:fs';

/** CPU time (ms, user + system) process `pid` has used so far, from /proc (Linux); null elsewhere. */
export function cpuMsOf(pid) {
  try {
    // Fields after the command name (which may contain spaces): utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // USER_HZ: 100 on Linux
  } catch {
    return null;
  }
}
