import { describe, expect, it } from 'vitest';
import { counterMetric, metricsRegistry, observeAtScrape, renderMetrics } from './metrics.js';

describe('metrics helpers', () => {
  it('get-or-create: registering a name twice returns the metric already there instead of throwing', async () => {
    const first = counterMetric('routinely_test_twice_total', 'test', ['kind']);
    const second = counterMetric('routinely_test_twice_total', 'test', ['kind']);
    expect(second).toBe(first);
    first.inc({ kind: 'a' });
    second.inc({ kind: 'a' });
    expect((await first.get()).values).toEqual([{ labels: { kind: 'a' }, value: 2 }]);
  });

  it('scrape-time gauges: one series per probe, failing probes left out, removed probes gone', async () => {
    const metric = { name: 'routinely_test_scraped', help: 'test', labelNames: ['service'] } as const;
    const removeA = observeAtScrape(metric, { service: 'a' }, async () => 3);
    const removeB = observeAtScrape(metric, { service: 'b' }, () => {
      throw new Error('database down');
    });
    const removeC = observeAtScrape(metric, { service: 'c' }, () => undefined);
    let text = (await renderMetrics()).body;
    expect(text).toContain('routinely_test_scraped{service="a"} 3');
    expect(text).not.toContain('service="b"');
    expect(text).not.toContain('service="c"');
    removeA();
    removeB();
    removeC();
    text = (await renderMetrics()).body;
    expect(text).not.toContain('routinely_test_scraped{');
    expect(metricsRegistry.getSingleMetric('routinely_test_scraped')).toBeDefined();
  });
});
