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

/**
 * The webhook retry schedule of a test host: 300 ms before each of the eight retries instead of the spec's 5 s,
 * 30 s, ..., 24 h (WEBHOOK_RETRY_WAITS_MS), so a retry is seen in well under a second. A deployed cluster keeps the
 * spec's schedule, so tests assert the wait only as a lower bound.
 */
export const TEST_RETRY_WAIT_MS = 300;
export const TEST_RETRY_WAITS_MS = Array.from({ length: 8 }, () => TEST_RETRY_WAIT_MS).join(',');
