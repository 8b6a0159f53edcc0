import { startEmbeddedPostgres } from '@routinely/db';
import { type EventTransport, InProcessTransport, JetStreamTransport } from '@routinely/events';
import { type Logger, MemoryRevocationStore, RedisRevocationStore, type RevocationStore } from '@routinely/platform';
import { Redis } from 'ioredis';

export interface InfrastructureOptions {
  logger: Logger;
  databaseUrl?: string | undefined;
  natsUrl?: string | undefined;
  redisUrl?: string | undefined;
  /** Where embedded PostgreSQL keeps its data when no DATABASE_URL is given. */
  dataDir: string;
  embeddedPostgresPort: number;
  /** Namespaces JetStream subjects and Redis keys (tests share servers). */
  namespace?: string;
}

export interface Infrastructure {
  databaseUrl: string;
  transport: EventTransport;
  redis: Redis | undefined;
  revocations: RevocationStore;
  describe: { database: 'external' | 'embedded'; events: 'jetstream' | 'in-process'; stores: 'redis' | 'in-process' };
  stop(): Promise<void>;
}

/**
 * The infrastructure every service shares: each URL switches one piece from its in-process default to the
 * real server (PostgreSQL, NATS JetStream, Redis).
 */
export async function startInfrastructure(options: InfrastructureOptions): Promise<Infrastructure> {
  const stops: (() => Promise<unknown>)[] = [];
  try {
    let databaseUrl = options.databaseUrl;
    if (!databaseUrl) {
      options.logger.info({ dataDir: options.dataDir }, 'starting embedded PostgreSQL');
      const pg = await startEmbeddedPostgres({
        dataDir: options.dataDir,
        port: options.embeddedPostgresPort,
        onLog: (message) => options.logger.debug({ pg: message.trim() }, 'postgres'),
      });
      databaseUrl = pg.url;
      stops.push(pg.stop);
    }
    const transport: EventTransport = options.natsUrl
      ? await JetStreamTransport.connect(options.natsUrl, options.logger, options.namespace ?? '')
      : new InProcessTransport();
    stops.unshift(() => transport.close());
    let redis: Redis | undefined;
    if (options.redisUrl) {
      const client = new Redis(options.redisUrl, { maxRetriesPerRequest: 3, enableAutoPipelining: true });
      await client.ping();
      redis = client;
      stops.unshift(() => client.quit());
    }
    const prefix = options.namespace ? `routinely:${options.namespace}:revoked:sid:` : undefined;
    return {
      databaseUrl,
      transport,
      redis,
      revocations: redis ? new RedisRevocationStore(redis, prefix) : new MemoryRevocationStore(),
      describe: {
        database: options.databaseUrl ? 'external' : 'embedded',
        events: options.natsUrl ? 'jetstream' : 'in-process',
        stores: redis ? 'redis' : 'in-process',
      },
      stop: async () => {
        for (const stop of stops) await stop().catch((error) => options.logger.warn({ err: error }, 'stop failed'));
      },
    };
  } catch (error) {
    for (const stop of stops) await stop().catch(() => {});
    throw error;
  }
}
