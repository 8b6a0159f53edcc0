// Child processes of the bench runners: a free loopback port, a node child that is ready once a URL answers,
// its stop, and the CPU time a process (or PostgreSQL's backends of one database) has used.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';

/** A loopback port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Spawns `args` with node and resolves once `readyUrl` answers 2xx; the child's stderr passes through. */
export async function startChild(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  readyUrl: string,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
  let exited: number | string | null = null;
  child.on('exit', (code, signal) => {
    exited = code ?? signal;
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (exited !== null) throw new Error(`${name} exited (${exited}) before it was ready`);
    try {
      const res = await fetch(readyUrl);
      if (res.ok) return child;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  child.kill('SIGKILL');
  throw new Error(`${name} was not ready within 60 s`);
}

/** SIGTERM, then SIGKILL after 10 s; resolves once the child has exited. */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** CPU time (ms, user + system) process `pid` has used so far, from /proc (Linux); null elsewhere. */
export function cpuMsOf(pid: number | undefined): number | null {
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
 * machine; its own backend is left out). A backend that disconnects between two samples takes its CPU with
 * it: the app's pools keep theirs for the run.
 */
export async function dbBackendsCpuMs(client: pg.Client, name: string): Promise<number> {
  const { rows } = await client.query<{ pid: number }>(
    'select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
    [name],
  );
  let total = 0;
  for (const { pid } of rows) total += cpuMsOf(pid) ?? 0;
  return total;
}
