import type { FastifyPluginAsync } from 'fastify';
import type { ServiceName } from './route-table.js';
import type { Worker } from './worker.js';

/**
 * What every service hands to whoever hosts it: the all-in-one process (all six behind one listener) or
 * its own standalone main (distributed mode). Building a service opens nothing public; `start` begins its
 * background work (outbox relay, consumers, workers) and `stop` ends it.
 */
export interface ServiceInstance {
  name: ServiceName;
  /** Routes written after the mount; the host registers them under /api/v1 and /v1. */
  routes: FastifyPluginAsync;
  /** Routes served outside the mounts (e.g. /.well-known/jwks.json). */
  rootRoutes?: FastifyPluginAsync;
  /** Adds this service's gRPC implementations to a grpc-js Server. */
  addGrpc?: (server: RpcServiceRegistry) => void;
  /** Readiness checks, by name. */
  readiness: Record<string, () => Promise<void>>;
  /** Its background workers (`defineWorker`): the host publishes their heartbeats as metrics. */
  backgroundWorkers?: readonly Worker[];
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * What a service needs of a grpc-js `Server` to add its implementations (the host binds and starts it). Declared
 * here so that this package needs no gRPC dependency; a grpc-js `Server` is one.
 */
export interface RpcServiceRegistry {
  addService(definition: never, implementation: never): void;
}
