import type { FastifyInstance } from 'fastify';

export type ReadinessCheck = () => Promise<void>;

/** Liveness (/livez: the process answers) and readiness (/readyz: every dependency answers). */
export function registerHealth(app: FastifyInstance, checks: Record<string, ReadinessCheck>): void {
  const config = { auth: 'none', rateLimit: false } as const;
  app.get('/livez', { config, schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config, schema: { hide: true } }, async (_request, reply) => {
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
