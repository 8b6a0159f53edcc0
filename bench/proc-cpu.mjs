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

/**
 * CPU time (ms) the PostgreSQL backends connected to database `name` have used so far (PostgreSQL on this
 * machine; other databases' backends, e.g. other people's work on a shared server, are not counted). `client`
 * is a connected `pg` client of another database or of the same one (its own backend is left out). A backend
 * that disconnects between two samples takes its CPU with it: the app's pools keep theirs for the run.
 */
export async function dbBackendsCpuMs(client, name) {
  const { rows } = await client.query(
    'select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
    [name],
  );
  let total = 0;
  for (const { pid } of rows) total += cpuMsOf(pid) ?? 0;
  return total;
}
