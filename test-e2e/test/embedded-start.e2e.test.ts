import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@routinely/distributed';
import { afterAll, describe, expect, it } from 'vitest';
import { aliasApiFor, apiFor, targetAt } from '../src/harness.js';
import { tokensOf } from '../src/users.js';

// `npm start`'s process as a user gets it: no DATABASE_URL, NATS_URL or REDIS_URL, so embedded PostgreSQL,
// the in-process transport and in-process stores. Runs the built entry point (npm test builds first).
const entry = new URL('../../apps/all-in-one/dist/main.js', import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), 'routinely-e2e-'));

async function start(port: number, pgPort: number): Promise<ChildProcess> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    EMBEDDED_PG_PORT: String(pgPort),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
  };
  for (const name of ['DATABASE_URL', 'NATS_URL', 'REDIS_URL', 'ENCRYPTION_KEY', 'INTERNAL_AUTH_SECRET'])
    delete env[name];
  const child = spawn(process.execPath, [entry], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}`);
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

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('all-in-one with embedded defaults', () => {
  it('starts with nothing configured, stops cleanly on SIGTERM and keeps its data across a restart', async () => {
    const port = await freePort();
    const pgPort = await freePort();
    const email = `embedded-${Date.now()}@example.test`;
    const first = await start(port, pgPort);
    const target = targetAt(`http://127.0.0.1:${port}`);
    const registered = await apiFor(target).POST('/api/v1/auth/register', {
      body: { email, password: 'correct horse battery', name: 'Embedded' },
    });
    expect(registered.response.status).toBe(201);
    expect(await stop(first)).toBe(0);
    // The port is free again, embedded PostgreSQL included.
    const reused = await new Promise<boolean>((resolve) => {
      const s = createServer()
        .once('error', () => resolve(false))
        .listen(pgPort, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    expect(reused).toBe(true);

    const second = await start(port, pgPort);
    try {
      const login = await aliasApiFor(target).POST('/api/v1/auth/login', {
        body: { email, password: 'correct horse battery' },
      });
      expect(login.response.status).toBe(200);
      expect(tokensOf(login.data).user.email).toBe(email);
    } finally {
      expect(await stop(second)).toBe(0);
    }
  }, 240_000);
});
