import { defaultGrpcAddress, envBool, platformConfigSchema, type ServiceName } from '@routinely/platform';
import { z } from 'zod';

const grpcAddress = (service: ServiceName) =>
  z
    .string()
    .optional()
    .describe(
      `host:port of the ${service} service's gRPC server (default \`${defaultGrpcAddress(service)}\`; the all-in-one uses the loopback port it started the service on)`,
    );

/**
 * Variables read before or beside the host's parse (the secrets loader, the gRPC address book, the tracing SDK).
 * They are declared here so the configuration reference lists them from one place; the host never reads them
 * from this schema's result.
 */
const readElsewhere = {
  ENCRYPTION_KEY: z
    .string()
    .optional()
    .describe(
      'base64 of 32 bytes: the AES-256-GCM key of secrets at rest; unset in the all-in-one: generated into DATA_DIR; required with DATABASE_URL',
    ),
  INTERNAL_AUTH_SECRET: z
    .string()
    .optional()
    .describe(
      'signs calls between services; unset in the all-in-one: generated into DATA_DIR; required with DATABASE_URL',
    ),
  AUTH_GRPC_ADDRESS: grpcAddress('auth'),
  CALENDAR_GRPC_ADDRESS: grpcAddress('calendar'),
  TASK_GRPC_ADDRESS: grpcAddress('task'),
  INTEGRATION_GRPC_ADDRESS: grpcAddress('integration'),
  DELIVERY_GRPC_ADDRESS: grpcAddress('delivery'),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .optional()
    .describe('OTLP/HTTP collector base URL (spans go to `<url>/v1/traces`); setting it turns tracing on'),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z
    .string()
    .optional()
    .describe('full traces URL instead of the base; also turns tracing on'),
  OTEL_SERVICE_NAME: z
    .string()
    .optional()
    .describe(
      '`service.name` of the spans (default `routinely-<svc>`, `routinely` in the all-in-one); the other standard `OTEL_*` variables (headers, sampler, batch processor, resource attributes) are read by the SDK',
    ),
};

export const hostConfigSchema = platformConfigSchema.extend({
  ...readElsewhere,
  GRPC_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(0)
    .describe('gRPC listener port; 0: a free loopback port (all-in-one); set in distributed mode'),
  GRPC_HOST: z.string().default('127.0.0.1').describe('gRPC listener address'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080).describe('HTTP listener port'),
  HOST: z.string().default('0.0.0.0').describe('HTTP listener address'),
  DATA_DIR: z
    .string()
    .default('./.data')
    .describe(
      'embedded PostgreSQL data and generated secrets (all-in-one); one start at a time holds it (routinely.lock)',
    ),
  EMBEDDED_PG_PORT: z.coerce
    .number()
    .int()
    .min(1)
    .max(65535)
    .default(54329)
    .describe('port of the embedded PostgreSQL'),
  INFRA_NAMESPACE: z
    .string()
    .default('')
    .describe('prefix of JetStream subjects and Redis keys when several instances share servers (tests)'),
  // Long enough for the load balancer to take the pod out; the all-in-one's entry defaults it to 0.
  SHUTDOWN_DRAIN_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(120_000)
    .default(5_000)
    .describe('on SIGTERM, how long `/readyz` answers 503 while requests are still served, before the listener closes'),
  METRICS_ENABLED: envBool(true).describe('serve Prometheus metrics at `/metrics` on the HTTP listener'),
  MIGRATE_ON_START: envBool(true).describe(
    "apply each service's pending migrations at start (under a lock per schema); `false` where a migration Job applies them first (the Helm chart): the host then refuses to start while any is pending",
  ),
});
export type HostConfig = z.infer<typeof hostConfigSchema>;
