import { randomBytes } from 'node:crypto';
import { requireEnv, uniqueName } from './infra.js';

/**
 * The environment of a host (the all-in-one) started inside a test: the real servers, its own JetStream and
 * Redis namespace, a free loopback port and limits no test reaches.
 */
export function testHostEnv(databaseUrl: string, namespace = uniqueName('host')): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    NATS_URL: requireEnv('NATS_URL'),
    REDIS_URL: requireEnv('REDIS_URL'),
    INFRA_NAMESPACE: namespace,
    PORT: '0',
    HOST: '127.0.0.1',
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    // One secret for every test instance: it also derives the per-service database role passwords,
    // which are cluster-wide, so instances running side by side must agree on it.
    INTERNAL_AUTH_SECRET: 'e2e-internal-auth-secret-0123456789abcdef',
    RATE_LIMIT_PER_MINUTE: '100000',
    RATE_LIMIT_PER_HOUR: '1000000',
    RATE_LIMIT_BURST: '10000',
  };
}
