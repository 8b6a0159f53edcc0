import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inSpan, SpanKind } from '@routinely/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTracing } from '../src/index.js';

/** A collector stand-in: records what arrives on the OTLP/HTTP traces path. */
const received: { path: string; contentType: string; body: string }[] = [];
const collector = createServer((request: IncomingMessage, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    received.push({
      path: request.url ?? '',
      contentType: String(request.headers['content-type']),
      body: Buffer.concat(chunks).toString('utf8'),
    });
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
let endpoint: string;

beforeAll(async () => {
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => collector.close(() => resolve())));

describe('tracing with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  it('exports the spans over OTLP/HTTP to <endpoint>/v1/traces under the service name', async () => {
    // The SDK and its exporter read the standard variables from the process environment.
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint;
    const tracing = await startTracing({ env: process.env, serviceName: 'routinely-export-test' });
    expect(tracing).toBeDefined();
    await inSpan('export check', { kind: SpanKind.INTERNAL }, async () => {});
    await tracing?.shutdown(); // flushes the batch
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;

    const traces = received.filter((r) => r.path === '/v1/traces');
    expect(traces.length).toBeGreaterThanOrEqual(1);
    const body = traces.map((t) => t.body).join('\n');
    expect(body).toContain('routinely-export-test');
    expect(body).toContain('export check');
  });
});
