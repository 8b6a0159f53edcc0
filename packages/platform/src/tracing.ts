import {
  type Attributes,
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

/**
 * Tracing through the OpenTelemetry API only: without an SDK registered (OTEL_EXPORTER_OTLP_ENDPOINT unset)
 * every call here is a no-op. The host entry starts the SDK; library code never does.
 */
export const tracer = trace.getTracer('routinely');

/** The W3C carrier fields of a context (`traceparent`, and `tracestate` when there is one). */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

/** The active context as W3C headers; empty when nothing is being traced. */
export function traceCarrier(ctx: Context = context.active()): TraceCarrier {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return {
    ...(carrier.traceparent ? { traceparent: carrier.traceparent } : {}),
    ...(carrier.tracestate ? { tracestate: carrier.tracestate } : {}),
  };
}

/** The active span's `traceparent`, for envelopes and message headers; undefined when not tracing. */
export function currentTraceparent(): string | undefined {
  return traceCarrier().traceparent;
}

/** The context a remote caller sent (HTTP headers, gRPC metadata, an event envelope). */
export function contextFromCarrier(carrier: Record<string, string | string[] | undefined>): Context {
  return propagation.extract(ROOT_CONTEXT, carrier);
}

function finish(span: Span, error?: unknown): void {
  if (error !== undefined) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/**
 * Runs `fn` in a new span that is the active one for everything `fn` does (its calls become children),
 * ending it with the outcome.
 */
export async function inSpan<T>(
  name: string,
  options: { kind: SpanKind; parent?: Context; attributes?: Attributes },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = tracer.startSpan(name, { kind: options.kind, attributes: options.attributes ?? {} }, parent);
  try {
    const result = await context.with(trace.setSpan(parent, span), () => fn(span));
    finish(span);
    return result;
  } catch (error) {
    finish(span, error);
    throw error;
  }
}

/**
 * Continues an event's trace in its consumer: a consumer span whose parent is the span that published the
 * event (its envelope's `traceparent`), active while `fn` runs.
 */
export function runInEventSpan<T>(
  envelope: { id: string; type: string; traceparent?: string | undefined },
  fn: () => Promise<T>,
  consumer?: string,
): Promise<T> {
  const parent = envelope.traceparent ? contextFromCarrier({ traceparent: envelope.traceparent }) : ROOT_CONTEXT;
  const attributes: Attributes = {
    'messaging.system': 'nats',
    'messaging.operation.type': 'process',
    'messaging.destination.name': envelope.type,
    'messaging.message.id': envelope.id,
    ...(consumer ? { 'messaging.consumer.group.name': consumer } : {}),
  };
  return inSpan(`process ${envelope.type}`, { kind: SpanKind.CONSUMER, parent, attributes }, () => fn());
}

export { SpanKind };
