import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@routinely/distributed';
import { afterAll, describe, expect, it } from 'vitest';
import { apiFor, targetAt } from '../src/harness.js';

// The all-in-one as `npm start` runs it (embedded PostgreSQL, in-process transport), killed the hard way.
const entry = new URL('../../apps/all-in-one/dist/main.js', import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), 'routinely-e2e-restart-'));
const children: ChildProcess[] = [];

function launch(port: number, pgPort: number): { child: ChildProcess; output: () => string } {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    EMBEDDED_PG_PORT: String(pgPort),
    DATA_DIR: dataDir,
  };
  for (const name of ['DATABASE_URL', 'NATS_URL', 'REDIS_URL', 'ENCRYPTION_KEY', 'INTERNAL_AUTH_SECRET', 'LOG_LEVEL'])
    delete env[name];
  // Its own process group, as `npm start` in a terminal has: a kill of the group takes its PostgreSQL too.
  const child = spawn(process.execPath, [entry], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  return { child, output: () => output };
}

async function healthy(port: number, pgPort: number): Promise<ChildProcess> {
  const { child, output } = launch(port, pgPort);
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}: ${output().slice(-2000)}`);
    const ok = await apiFor(targetAt(`http://127.0.0.1:${port}`))
      .GET('/api/v1/auth/health')
      .then(
        (r) => r.response.status === 200,
        () => false,
      );
    if (ok) return child;
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill('SIGKILL');
  throw new Error('did not become healthy');
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  await Promise.all(children.map(exited));
  // Whatever PostgreSQL a killed run left behind is stopped by the last start; make sure none outlives the test.
  const pidFile = join(dataDir, 'postgres', 'postmaster.pid');
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    try {
      process.kill(pid, 'SIGINT');
    } catch {}
  }
  rmSync(dataDir, { recursive: true, force: true });
});

const PASSWORD = 'correct horse battery staple';
const readIn = (name: string) => readFileSync(join(dataDir, name), 'utf8');

describe('all-in-one after its node process alone is killed', () => {
  it('stops the orphaned embedded PostgreSQL of its data folder and starts with the data intact', async () => {
    const port = await freePort();
    const pgPort = await freePort();
    const email = `restart-${Date.now()}@example.test`;
    const first = await healthy(port, pgPort);
    const api = apiFor(targetAt(`http://127.0.0.1:${port}`));
    const registered = await api.POST('/api/v1/auth/register', {
      body: { email, password: 'correct horse battery staple', name: 'Restart' },
    });
    expect(registered.response.status).toBe(201);
    first.kill('SIGKILL');
    await exited(first);
    // The orphan still holds the data folder's lock.
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(true);

    const second = await healthy(port, pgPort);
    const login = await api.POST('/api/v1/auth/login', { body: { email, password: 'correct horse battery staple' } });
    expect(login.response.status).toBe(200);
    second.kill('SIGTERM');
    expect(await exited(second)).toBe(0);
  }, 300_000);

  // embedded-postgres-restart.e2e.test.ts repeats the database's part of this 20 times.
  it('starts again at once after a kill -9 of its node process and then of its process group, 3 of 3 times', async () => {
    const port = await freePort();
    const pgPort = await freePort();
    const api = apiFor(targetAt(`http://127.0.0.1:${port}`));
    const emails: string[] = [];
    const restartsMs: number[] = [];
    let running = await healthy(port, pgPort);
    for (let round = 0; round < 3; round++) {
      const email = `crash-${round}-${Date.now()}@example.test`;
      const registered = await api.POST('/api/v1/auth/register', {
        body: { email, password: PASSWORD, name: 'Crash' },
      });
      expect(registered.response.status).toBe(201);
      emails.push(email);
      // The node process first, then whatever is left of its group (its PostgreSQL, mid-exit or not), and the
      // next start right away, as a supervisor or an impatient person does.
      const pid = running.pid ?? 0;
      process.kill(pid, 'SIGKILL');
      process.kill(-pid, 'SIGKILL');
      const restarted = Date.now();
      running = await healthy(port, pgPort);
      restartsMs.push(Date.now() - restarted);
      for (const earlier of [emails[0], email]) {
        const login = await api.POST('/api/v1/auth/login', { body: { email: String(earlier), password: PASSWORD } });
        expect(login.response.status, `round ${round}: ${earlier}`).toBe(200);
      }
    }
    for (const email of emails) {
      expect((await api.POST('/api/v1/auth/login', { body: { email, password: PASSWORD } })).response.status).toBe(200);
    }
    console.info(`restart to healthy after kill -9 (ms): ${restartsMs.join(', ')}`);
    running.kill('SIGTERM');
    expect(await exited(running)).toBe(0);
  }, 600_000);

  it('a second start on the data folder of a running one refuses, says why, and changes nothing', async () => {
    const port = await freePort();
    const first = await healthy(port, await freePort());
    const api = apiFor(targetAt(`http://127.0.0.1:${port}`));
    const email = `first-${Date.now()}@example.test`;
    expect(
      (await api.POST('/api/v1/auth/register', { body: { email, password: PASSWORD, name: 'F' } })).response.status,
    ).toBe(201);
    const before = ['secrets.json', 'postgres/postmaster.pid'].map(readIn);

    // Another HTTP port and another PostgreSQL port: nothing but the folder is shared.
    const second = launch(await freePort(), await freePort());
    const outcome = await Promise.race([
      exited(second.child),
      new Promise((resolve) => setTimeout(() => resolve('still running after 120 s'), 120_000)),
    ]);
    expect(outcome, second.output().slice(-2000)).toBe(1);
    expect(second.output()).toContain(`${dataDir} is in use by another Routinely process (pid ${first.pid})`);

    expect(['secrets.json', 'postgres/postmaster.pid'].map(readIn)).toEqual(before);
    expect(readIn('routinely.lock').split('\n')[0]).toBe(String(first.pid));
    const login = await api.POST('/api/v1/auth/login', { body: { email, password: PASSWORD } });
    expect(login.response.status).toBe(200);
    const other = `after-${Date.now()}@example.test`;
    expect(
      (await api.POST('/api/v1/auth/register', { body: { email: other, password: PASSWORD, name: 'A' } })).response
        .status,
    ).toBe(201);
    // A graceful stop gives the folder up.
    first.kill('SIGTERM');
    expect(await exited(first)).toBe(0);
    expect(existsSync(join(dataDir, 'routinely.lock'))).toBe(false);
  }, 300_000);

  it('refuses to start without secrets.json while data exists, saying what is wrong and what to do', async () => {
    rmSync(join(dataDir, 'secrets.json'));
    const { child, output } = launch(await freePort(), await freePort());
    expect(await exited(child)).toBe(1);
    expect(output()).toContain('secrets.json is missing');
    expect(output()).toContain('Restore secrets.json from a backup');
  }, 60_000);
});
