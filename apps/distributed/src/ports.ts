import { once } from 'node:events';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Ports for processes a harness starts, reserved across every process on the machine.
 *
 * A port found with `listen(0)` and released comes from the kernel's ephemeral range (32768-60999 here), which
 * the same kernel hands to outgoing connections: under load, a service's connection to PostgreSQL or NATS could
 * take the port before the replica meant for it bound it (EADDRINUSE). So ports come from below that range,
 * where the kernel never picks on its own, and each one is claimed by an exclusively created file naming the
 * claiming process, so parallel test files and runs never pick the same one. A claim whose process is gone is
 * stale and taken over; a process's claims are dropped when it exits.
 */
const FIRST = 20_000;
const COUNT = 12_000; // up to 31999, below the ephemeral range's usual start of 32768
const claimsDir = join(tmpdir(), 'routinely-ports');
const claimed = new Set<number>();
let releasesOnExit = false;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

function claim(port: number): boolean {
  const file = join(claimsDir, String(port));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(file, 'utf8').trim());
      // A claim being written has no pid yet; leave it to its writer.
      if (!owner || alive(owner)) return false;
      rmSync(file, { force: true });
    }
  }
  return false;
}

/**
 * Whether 127.0.0.1 takes `port` now. (Raced as `once('listening')` against `once('error')`, the first rejected
 * with the error itself: a port another program held, as RabbitMQ holds 25672 here, failed `freePort`.)
 */
export async function bindable(port: number): Promise<boolean> {
  const server = createServer();
  const outcome = new Promise<boolean>((resolve) => {
    server.once('listening', () => resolve(true));
    server.once('error', () => resolve(false));
  });
  server.listen(port, '127.0.0.1');
  if (await outcome) {
    server.close();
    await once(server, 'close');
  }
  return outcome;
}

function releaseAll() {
  for (const port of claimed) rmSync(join(claimsDir, String(port)), { force: true });
  claimed.clear();
}

/** A free port on 127.0.0.1 that no other harness process holds; kept until this process exits. */
export async function freePort(): Promise<number> {
  mkdirSync(claimsDir, { recursive: true });
  if (!releasesOnExit) {
    process.once('exit', releaseAll);
    releasesOnExit = true;
  }
  const start = Math.floor(Math.random() * COUNT);
  for (let step = 0; step < COUNT; step++) {
    const port = FIRST + ((start + step) % COUNT);
    if (claimed.has(port) || !claim(port)) continue;
    if (await bindable(port)) {
      claimed.add(port);
      return port;
    }
    rmSync(join(claimsDir, String(port)), { force: true });
  }
  throw new Error(`no free port between ${FIRST} and ${FIRST + COUNT - 1}`);
}
