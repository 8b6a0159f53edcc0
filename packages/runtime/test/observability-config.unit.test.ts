import { parseConfig } from '@routinely/platform';
import { describe, expect, it } from 'vitest';
import { hostConfigSchema, startTracing, tracingEnabled } from '../src/index.js';

describe('observability settings', () => {
  it('drains 5 s by default and rejects a drain that is not a bounded whole number of ms', () => {
    expect(parseConfig(hostConfigSchema, {}).SHUTDOWN_DRAIN_MS).toBe(5_000);
    expect(parseConfig(hostConfigSchema, { SHUTDOWN_DRAIN_MS: '0' }).SHUTDOWN_DRAIN_MS).toBe(0);
    for (const bad of ['-1', '1.5', 'soon', '600000']) {
      expect(() => parseConfig(hostConfigSchema, { SHUTDOWN_DRAIN_MS: bad })).toThrow(/SHUTDOWN_DRAIN_MS/);
    }
    expect(parseConfig(hostConfigSchema, {}).METRICS_ENABLED).toBe(true);
    expect(parseConfig(hostConfigSchema, { METRICS_ENABLED: 'false' }).METRICS_ENABLED).toBe(false);
    expect(() => parseConfig(hostConfigSchema, { METRICS_ENABLED: 'maybe' })).toThrow(/METRICS_ENABLED/);
  });

  it('tracing stays off (no SDK loaded) unless an OTLP endpoint is configured', async () => {
    expect(tracingEnabled({})).toBe(false);
    expect(await startTracing({ env: {}, serviceName: 'routinely-test' })).toBeUndefined();
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' })).toBe(true);
  });
});
