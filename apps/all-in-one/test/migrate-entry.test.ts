import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, quietLogger, testHostEnv } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAllInOne } from '../src/index.js';

// The built entry the Helm chart runs in its migration Job / init containers (`npm run build` makes it).
const entry = fileURLToPath(new URL('../dist/migrate.js', import.meta.url));

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let env: Record<string, string>;
beforeAll(async () => {
  db = await createTestDatabase();
  env = { ...testHostEnv(db.url), MIGRATE_ON_START: 'false', LOG_LEVEL: 'warn' };
});
afterAll(() => db?.drop());

const migrate = (...services: string[]) =>
  spawnSync(process.execPath, [entry, ...services], { env: { ...process.env, ...env }, encoding: 'utf8' });

describe('the migrate entry point and MIGRATE_ON_START=false', () => {
  it('refuses to serve before migrations, migrates every service and exits, then serves', {
    timeout: 120_000,
  }, async () => {
    await expect(startAllInOne({ env, logger: quietLogger() })).rejects.toThrow(/not applied .*MIGRATE_ON_START=false/);

    expect(migrate('nonsense').status).toBe(2);
    const all = migrate();
    expect(all.status, all.stderr).toBe(0);
    const running = await startAllInOne({ env, logger: quietLogger() });
    try {
      const response = await fetch(`${running.url}/readyz`);
      expect(response.status).toBe(200);
    } finally {
      await running.close();
    }
  });
});
