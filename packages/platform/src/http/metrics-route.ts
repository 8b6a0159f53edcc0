import type { FastifyInstance } from 'fastify';
import { collectProcessMetrics, renderMetrics } from '../metrics.js';

export const METRICS_PATH = '/metrics';

/**
 * Prometheus' scrape target, outside the API mounts: not documented, not rate limited, no token (the
 * gateway does not route it; only the cluster's scraper reaches a pod's listener).
 */
export function registerMetricsRoute(app: FastifyInstance): void {
  collectProcessMetrics();
  app.get(
    METRICS_PATH,
    { config: { auth: 'none', rateLimit: false, trace: false }, schema: { hide: true }, logLevel: 'warn' },
    async (_request, reply) => {
      const { contentType, body } = await renderMetrics();
      return reply.type(contentType).send(body);
    },
  );
}
