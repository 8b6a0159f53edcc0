import type { SpanProcessor } from '@opentelemetry/sdk-trace';

export interface Tracing {
  /** Flushes the spans still buffered and stops exporting. */
  shutdown(): Promise<void>;
}

/** Tracing is on when an OTLP endpoint is configured (the standard OTEL_* variables). */
export function tracingEnabled(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Starts the OpenTelemetry SDK once per process, before the host: spans go over OTLP/HTTP to the configured
 * endpoint (batching, sampling and headers from the standard OTEL_* variables). No auto-instrumentation:
 * the platform traces HTTP, gRPC and events itself, so import order does not matter. Metrics stay with
 * Prometheus (/metrics) and logs with stdout. `spanProcessors` replaces the exporter (tests: in memory) and
 * turns tracing on regardless of the environment. Returns undefined when tracing is off; the SDK's
 * packages are then never loaded.
 */
export async function startTracing(options: {
  env: NodeJS.ProcessEnv;
  /** routinely-<svc>, or routinely for the all-in-one; OTEL_SERVICE_NAME overrides it. */
  serviceName: string;
  spanProcessors?: SpanProcessor[];
}): Promise<Tracing | undefined> {
  if (!options.spanProcessors && !tracingEnabled(options.env)) return undefined;
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const exporting = options.spanProcessors
    ? { spanProcessors: options.spanProcessors }
    : { traceExporter: new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter() };
  const sdk = new NodeSDK({
    serviceName: options.env.OTEL_SERVICE_NAME || options.serviceName,
    ...exporting,
    instrumentations: [],
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
