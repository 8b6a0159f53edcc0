import type { FastifyInstance } from 'fastify';

export type ReadinessCheck = () => Promise<void>;

/**
 * Liveness (/livez: the process answers) and readiness (/readyz: every dependency answers). While the host
 * drains before shutdown, /readyz answers 503 so the load balancer stops sending new requests. The probes are
 * public, so a failed check answers its name and `unavailable` only: why it failed (a database's host, port and
 * socket error) goes to the log, and administrators see the components on `GET /admin/health`.
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
  app.get('/readyz', route, async (request, reply) => {
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
          results[name] = 'unavailable';
          request.log.warn({ check: name, err: error }, 'readiness check failed');
        }
      }),
    );
    return reply.status(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', checks: results });
  });
}
