import type { Context, Span } from '@opentelemetry/api';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { counterMetric, histogramMetric, LATENCY_BUCKETS } from '../metrics.js';
import { contextFromCarrier, tracer } from '../tracing.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: no span for this route (probes and scrapes, which would only add noise to the traces). */
    trace?: false;
  }
}

const httpRequests = counterMetric('routinely_http_requests_total', 'HTTP requests answered, by route template', [
  'method',
  'route',
  'status',
]);
const httpDuration = histogramMetric(
  'routinely_http_request_duration_seconds',
  'Time from receiving an HTTP request to finishing its answer, by route template',
  ['method', 'route', 'status'],
  LATENCY_BUCKETS,
);

/** Requests that matched no route share one label value, so probing random paths cannot grow the series. */
const UNMATCHED = 'unmatched';

interface RequestTrace {
  span: Span;
  ctx: Context;
}
const traces = new WeakMap<FastifyRequest, RequestTrace>();

/**
 * Per request: a server span continuing the caller's `traceparent`, one metric sample by route template,
 * method and status, and one log line (route, user, tenant, status, duration; never headers or bodies).
 *
 * The span's context is entered in `onRequest` (authentication runs in it) and entered again in
 * `preHandler`, because body parsing resumes from the socket's events, outside any context; from there the
 * hook chain and the handler run synchronously inside `context.with`, so whatever the handler calls (gRPC,
 * the outbox) is a child of the request's span.
 */
export function registerRequestObservability(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.routeOptions.config.trace === false) return done();
    const route = request.routeOptions.url ?? UNMATCHED;
    const parent = contextFromCarrier(request.headers);
    const span = tracer.startSpan(
      `${request.method} ${route}`,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method, 'http.route': route } },
      parent,
    );
    const ctx = trace.setSpan(parent, span);
    traces.set(request, { span, ctx });
    context.with(ctx, done);
  });

  app.addHook('preHandler', (request, _reply, done) => {
    const current = traces.get(request);
    if (current) context.with(current.ctx, done);
    else done();
  });

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? UNMATCHED;
    const status = reply.statusCode;
    const labels = { method: request.method, route, status: String(status) };
    httpRequests.inc(labels);
    httpDuration.observe(labels, reply.elapsedTime / 1000);
    endSpan(request, reply);
    request.log.info(
      {
        method: request.method,
        route,
        status,
        duration_ms: Math.round(reply.elapsedTime * 10) / 10,
        user_id: request.principal?.userId ?? null,
        tenant_id: request.tenantId ?? null,
      },
      'request completed',
    );
  });

  app.addHook('onRequestAbort', async (request) => {
    const current = traces.get(request);
    if (!current) return;
    current.span.setStatus({ code: SpanStatusCode.ERROR, message: 'client aborted' });
    current.span.end();
    traces.delete(request);
  });
}

function endSpan(request: FastifyRequest, reply: FastifyReply): void {
  const current = traces.get(request);
  if (!current) return;
  traces.delete(request);
  current.span.setAttribute('http.response.status_code', reply.statusCode);
  if (reply.statusCode >= 500) current.span.setStatus({ code: SpanStatusCode.ERROR });
  current.span.end();
}
