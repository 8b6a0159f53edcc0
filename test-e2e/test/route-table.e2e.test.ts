import { serviceForPath } from '@routinely/platform';
import { describe, expect, it } from 'vitest';
import { startLocalAllInOne } from '../src/harness.js';

describe('route table', () => {
  it('assigns every path each service registers to that service (Envoy and the all-in-one cannot drift)', async () => {
    const { running, close } = await startLocalAllInOne();
    try {
      const byService = running.app.routesByService;
      expect(Object.keys(byService).length).toBe(running.services.length);
      for (const [service, paths] of Object.entries(byService)) {
        expect(paths.length, service).toBeGreaterThan(0);
        for (const path of paths) expect(serviceForPath(path), `${service} ${path}`).toBe(service);
      }
    } finally {
      await close();
    }
  });
});
