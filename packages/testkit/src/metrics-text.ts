/**
 * The value of one sample in Prometheus' text exposition (`name{labels} value`), labels given in the order
 * prom-client writes them; undefined when the scrape has no such series.
 */
export function metricSample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
