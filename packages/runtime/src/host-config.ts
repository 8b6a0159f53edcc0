import { envBool, platformConfigSchema } from '@routinely/platform';
import { z } from 'zod';

export const hostConfigSchema = platformConfigSchema.extend({
  /** gRPC listener: 0 = a free loopback port (all-in-one); set in distributed mode. */
  GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  GRPC_HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./.data'),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  /** Namespaces JetStream subjects and Redis keys when several instances share servers (tests). */
  INFRA_NAMESPACE: z.string().default(''),
  /**
   * On SIGTERM, how long /readyz answers 503 while requests are still served, before the listener closes:
   * long enough for the load balancer to take the pod out (the all-in-one defaults to 0).
   */
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(120_000).default(5_000),
  /** Serve Prometheus metrics at /metrics on the listener. */
  METRICS_ENABLED: envBool(true),
  /**
   * Apply each service's pending migrations at start (under a lock per schema). `false` where a migration Job
   * or init container applies them first (the Helm chart): the host then refuses to start while any is pending.
   */
  MIGRATE_ON_START: envBool(true),
});
export type HostConfig = z.infer<typeof hostConfigSchema>;
