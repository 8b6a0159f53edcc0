import { freePort } from '@routinely/distributed';
import { postgresBin, startPostgresCluster } from '@routinely/testkit/postgres-cluster';

/**
 * The e2e tier's own PostgreSQL cluster, where the machine has the server binaries. The gateway topology and the
 * in-process all-in-ones of the files running at once held up to 95 connections of the shared server's 100; a
 * few more (a slower machine, files overlapping differently) and a service's new connection was refused, which
 * its request answered with 500 (ADR 009). Without the binaries, or against a deployment (E2E_BASE_URL), the
 * tier uses DATABASE_URL as it is.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const bin = postgresBin();
  if (!bin || process.env.E2E_BASE_URL) return async () => {};
  const server = await startPostgresCluster(bin, { port: await freePort(), maxConnections: 300 });
  process.env.DATABASE_URL = server.url;
  return server.close;
}
