import { Counter, collectDefaultMetrics, Gauge, Histogram, register } from 'prom-client';

/**
 * Prometheus metrics on prom-client's default registry. Every metric is got-or-created by name, so a module
 * evaluated twice in one process (two hosts in a test, a source and a built copy) reuses the registered
 * metric instead of throwing "already registered".
 */
export const metricsRegistry = register;

export function counterMetric<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
  const existing = register.getSingleMetric(name);
  if (existing) return existing as Counter<L>;
  return new Counter({ name, help, labelNames });
}

export function histogramMetric<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
  buckets: number[],
): Histogram<L> {
  const existing = register.getSingleMetric(name);
  if (existing) return existing as Histogram<L>;
  return new Histogram({ name, help, labelNames, buckets });
}

type Labels = Record<string, string>;
/** Reads one value when Prometheus scrapes; undefined or a throw leaves the series out of that scrape. */
export type ScrapeProbe = () => Promise<number | undefined> | number | undefined;

interface ScrapeSource {
  labels: Labels;
  read: ScrapeProbe;
}

// Kept on globalThis so probes registered through a second copy of this module feed the same gauge.
const SOURCES_KEY = Symbol.for('routinely.metrics.scrape-sources');
type SourceTable = Map<string, Set<ScrapeSource>>;
function sourceTable(): SourceTable {
  const holder = globalThis as { [SOURCES_KEY]?: SourceTable };
  holder[SOURCES_KEY] ??= new Map();
  return holder[SOURCES_KEY];
}

function scrapeGauge(name: string, help: string, labelNames: readonly string[]): void {
  if (register.getSingleMetric(name)) return;
  new Gauge({
    name,
    help,
    labelNames,
    async collect() {
      // Series of probes that were removed (a stopped service) must not linger with their last value.
      this.reset();
      const sources = [...(sourceTable().get(name) ?? [])];
      const values = await Promise.all(
        sources.map((s) =>
          Promise.resolve()
            .then(s.read)
            .catch(() => undefined),
        ),
      );
      sources.forEach((source, i) => {
        const value = values[i];
        if (value !== undefined && Number.isFinite(value)) this.set(source.labels, value);
      });
    },
  });
}

/**
 * A gauge whose value is computed at scrape time (a query, a pool's state). Returns the function that
 * removes the probe, called when the thing it observes stops.
 */
export function observeAtScrape(
  metric: { name: string; help: string; labelNames: readonly string[] },
  labels: Labels,
  read: ScrapeProbe,
): () => void {
  scrapeGauge(metric.name, metric.help, metric.labelNames);
  const table = sourceTable();
  const sources = table.get(metric.name) ?? new Set<ScrapeSource>();
  table.set(metric.name, sources);
  const source = { labels, read };
  sources.add(source);
  return () => {
    sources.delete(source);
  };
}

/** Node's process metrics (CPU, memory, event loop lag, GC), once per process, under the same prefix. */
export function collectProcessMetrics(): void {
  if (register.getSingleMetric('routinely_process_cpu_seconds_total')) return;
  collectDefaultMetrics({ prefix: 'routinely_' });
}

/** The text exposition Prometheus scrapes. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: register.contentType, body: await register.metrics() };
}

/** Request latency buckets in seconds: 5 ms to 10 s. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Lag buckets in seconds for background work: 100 ms to 10 min. */
export const LAG_BUCKETS = [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600];
