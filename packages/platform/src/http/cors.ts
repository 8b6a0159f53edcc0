import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { originOf } from './csrf.js';

/** Answer headers a browser script may read (ids for support, rate-limit state, where a created thing is, list totals). */
const EXPOSED_HEADERS = [
  'X-Request-Id',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'Location',
  'WWW-Authenticate',
  'X-Total-Count',
];

/**
 * CORS for the configured origins only: the same list the cookie CSRF guard admits (PUBLIC_BASE_URL's origin
 * plus ALLOWED_ORIGINS), so a page may call the API from the browser exactly where its cookie writes are
 * accepted. Other origins get no CORS headers (the browser then refuses to expose the answer). Preflights
 * are answered before authentication and are not rate limited.
 */
export async function registerCors(app: FastifyInstance, allowedOrigins: readonly string[]): Promise<void> {
  const allowed = new Set(allowedOrigins.map((o) => originOf(o)).filter((o): o is string => !!o));
  app.addHook('onRoute', (route) => {
    if (route.method === 'OPTIONS' && route.url === '*') {
      route.config = { ...(route.config ?? {}), auth: 'none', rateLimit: false };
    }
  });
  await app.register(cors, {
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(originOf(origin) ?? '')),
    credentials: true,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id', 'X-Tenant-ID'],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
}
