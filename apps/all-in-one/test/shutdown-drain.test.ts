import { get } from 'node:http';
import { describe, expect, it } from 'vitest';
import { call, startTestAllInOne } from './start.js';

/** The `connection` header of an answer, read off the wire (fetch does not show hop-by-hop headers reliably). */
const connectionHeader = (url: string) =>
  new Promise<string | undefined>((resolve, reject) => {
    get(url, { agent: false, headers: { connection: 'keep-alive' } }, (res) => {
      res.resume();
      resolve(res.headers.connection);
    }).on('error', reject);
  });

describe('shutdown drains readiness first', () => {
  it('answers /readyz 503 while still serving, then closes the listener and stops', async () => {
    const target = await startTestAllInOne({ env: { SHUTDOWN_DRAIN_MS: '3000' } });
    const baseUrl = target.running.url;
    expect((await call(baseUrl, 'GET', '/readyz')).status).toBe(200);
    expect(await connectionHeader(`${baseUrl}/livez`)).toBe('keep-alive');

    const closing = target.close();
    const readyz = await call(baseUrl, 'GET', '/readyz');
    expect(readyz.status).toBe(503);
    expect(readyz.json.status).toBe('draining');
    // Draining only takes the instance out of rotation: requests already routed here are still answered.
    expect((await call(baseUrl, 'GET', '/livez')).status).toBe(200);
    expect((await call(baseUrl, 'GET', '/api/v1/openapi.json')).status).toBe(200);
    // ...each on a connection closed after its answer, so no idle keep-alive connection is cut when it stops.
    expect(await connectionHeader(`${baseUrl}/livez`)).toBe('close');

    await closing;
    await expect(fetch(`${baseUrl}/livez`)).rejects.toThrow();
  });
});
