import type { FastifyInstance } from 'fastify';

export type ReadinessCheck = () => Promise<void>;

/**
 * Liveness (/livez: the process answers) and readiness (/readyz: every dependency answers). While the host
 * drains before shutdown, /readyz answers 503 so the load balancer stops sending new requests.
 */
export function registerHealth(
  app: FastifyInstance,
  checks: Record<string, ReadinessCheck>,
  options: { draining?: () => boolean } = {},
): void {
  const config = { auth: 'none', rateLimit: false, trace: false } as const;
  // Probes hit every few seconds: their request lines stay below info.
  const route = { config, schema: { hide: true }, logLevel: 'warn' } as const;
  app.get('/livez', route, async () => ({ status: 'ok' }));
  app.get('/readyz', route, async (_request, reply) => {
    if (options.draining?.()) return reply.status(503).send({ status: 'draining', checks: {} });
    const results: Record<string, string> = {};
    let ok = true;
    await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          await check();
          results[name] = 'ok';
        } catch (error) {
          ok = false;
          results[name] = error instanceof Error ? error.message : 'failed';
        }
      }),
    );
    return reply.status(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', checks: results });
  });
}
