// Child processes of the bench runners (ratios.mjs, durable-floor.mjs): a free loopback port, a node child that
// is ready once a URL answers, and its stop.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** A loopback port nobody listens on right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Spawns `args` with node and resolves once `readyUrl` answers 2xx; the child's stderr passes through. */
export async function startChild(name, args, env, readyUrl) {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
  let exited = null;
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
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`${name} was not ready within 60 s`);
}

/** SIGTERM, then SIGKILL after 10 s; resolves once the child has exited. */
export function stopChild(child) {
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
