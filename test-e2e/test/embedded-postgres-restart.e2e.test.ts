import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@routinely/distributed';
import { afterAll, describe, expect, it } from 'vitest';

// What `npm start` leaves when it is killed the hard way: its node process, then its whole process group (the
// embedded PostgreSQL and its backends, mid-exit or not). The next start comes at once and must find the data.
// This is the all-in-one's start up to its database (packages/db's build output), 20 times in a few seconds;
// embedded-restart.e2e.test.ts does the same with the whole all-in-one, fewer times (a start costs seconds).
const child = new URL('../src/embedded-postgres-child.mjs', import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), 'embedded-restart-'));
const ROUNDS = 20;
let last: ChildProcess | undefined;

type Said = { started: boolean; rounds?: number[]; error?: string };

/** One start in a process group of its own; resolves with what it said once it started (or failed). */
async function start(port: number, round: number) {
  const started = spawn(process.execPath, [child, dataDir, String(port), String(round)], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  last = started;
  let output = '';
  started.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const said = await Promise.race([
    once(started.stdout as NodeJS.ReadableStream, 'data').then(([line]) => JSON.parse(String(line)) as Said),
    once(started, 'exit').then((): Said => ({ started: false, error: `exited: ${output.slice(-500)}` })),
  ]);
  return { pid: started.pid ?? 0, said };
}

afterAll(() => {
  // The last start still runs: its group goes the way the others went.
  if (last?.pid && last.exitCode === null && last.signalCode === null) process.kill(-last.pid, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('embedded PostgreSQL after a kill -9 of its node process and then of its process group', () => {
  it(`starts again at once and keeps the data, ${ROUNDS} of ${ROUNDS} times`, async () => {
    const port = await freePort();
    for (let round = 0; round < ROUNDS; round++) {
      const { pid, said } = await start(port, round);
      expect(said.error, `round ${round}`).toBeUndefined();
      expect(said.rounds, `round ${round}`).toEqual(Array.from({ length: round + 1 }, (_, i) => i));
      process.kill(pid, 'SIGKILL');
      process.kill(-pid, 'SIGKILL');
    }
  }, 300_000);
});
