import { startAllInOne } from '@routinely/all-in-one';
import { serviceForPath } from '@routinely/platform';
import { createTestDatabase, quietLogger } from '@routinely/testkit';
import { describe, expect, it } from 'vitest';

describe('route table', () => {
  it('assigns every path each service registers to that service (Envoy and the all-in-one cannot drift)', async () => {
    const db = await createTestDatabase();
    const running = await startAllInOne({
      env: {
        ...process.env,
        DATABASE_URL: db.url,
        NATS_URL: '',
        REDIS_URL: '',
        PORT: '0',
        HOST: '127.0.0.1',
        ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
        INTERNAL_AUTH_SECRET: 'route-table-test-secret-0123456789abcdef',
      },
      logger: quietLogger(),
    });
    try {
      const byService = running.app.routesByService;
      expect(Object.keys(byService).length).toBe(running.services.length);
      for (const [service, paths] of Object.entries(byService)) {
        expect(paths.length, service).toBeGreaterThan(0);
        for (const path of paths) expect(serviceForPath(path), `${service} ${path}`).toBe(service);
      }
    } finally {
      await running.close();
      await db.drop();
    }
  });
});
