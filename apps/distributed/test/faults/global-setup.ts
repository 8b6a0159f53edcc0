import { postgresBin, startPostgres } from './servers.js';

/**
 * The fault tier's own PostgreSQL cluster, where the machine has the server binaries. `npm test` runs this tier
 * beside the others (scripts/toolchain.mjs): its topologies of up to 13 processes would otherwise take the shared
 * server's connection slots from the tiers running at the same time. Without the binaries the tier uses
 * DATABASE_URL as it is (the infrastructure faults, which need them, say so under CI).
 */
export default async function setup(): Promise<() => Promise<void>> {
  const bin = postgresBin();
  if (!bin) return async () => {};
  const server = await startPostgres(bin, { maxConnections: 200 });
  process.env.DATABASE_URL = server.url;
  return server.close;
}
