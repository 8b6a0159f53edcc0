// The tables ratios.ts prints: per build, each row's median over the rounds; with two builds or more, the
// last build's change against the first's. The first burst of each build's webhook row is printed apart.
import type { Row } from './lib.ts';
import type { Floor } from './sql-floor.ts';
import type { BareLoopFigure, WebhookFigure } from './webhook-ratio.ts';

export interface HttpFigure extends Row {
  server_cpu_us_per_request: number | null;
  db_cpu_us_per_request?: number | null;
}

export interface WebhookPair {
  figure: WebhookFigure;
  bare: BareLoopFigure;
  first_burst?: { figure: WebhookFigure; bare: BareLoopFigure };
}

export interface BuildFigures {
  label: string;
  /** Per row key, one figure per round. */
  rows: Record<string, HttpFigure[]>;
  webhooks?: WebhookPair;
}

const median = (values: (number | null | undefined)[]): number | null => {
  const known = values.filter((v): v is number => typeof v === 'number').sort((a, b) => a - b);
  if (known.length === 0) return null;
  const mid = known.length >> 1;
  return known.length % 2 ? (known[mid] as number) : ((known[mid - 1] as number) + (known[mid] as number)) / 2;
};
const n = (value: number | null, digits = 0) =>
  value === null ? 'n/a' : value.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const change = (from: number | null, to: number | null) =>
  from === null || to === null || from === 0
    ? 'n/a'
    : `${to >= from ? '+' : ''}${(((to - from) / from) * 100).toFixed(1)} %`;

interface Summary {
  perS: number | null;
  cpuUs: number | null;
  p99: number | null;
  dbCpuUs: number | null;
  invalid: string;
}

function summarize(figures: HttpFigure[] | undefined): Summary | null {
  if (!figures?.length) return null;
  const non2xx = figures.reduce((sum, f) => sum + f.non_2xx, 0);
  const errors = figures.reduce((sum, f) => sum + f.errors, 0);
  return {
    perS: median(figures.map((f) => f.requests_per_s)),
    cpuUs: median(figures.map((f) => f.server_cpu_us_per_request)),
    p99: median(figures.map((f) => f.p99_ms)),
    dbCpuUs: median(figures.map((f) => f.db_cpu_us_per_request)),
    invalid: non2xx || errors ? ` (INVALID: ${non2xx} non-2xx, ${errors} errors)` : '',
  };
}

function webhookCells(pair: WebhookPair | undefined) {
  if (!pair) return { rate: 'skipped', cpu: 'skipped', lag: 'skipped' };
  const { figure: f, bare } = pair;
  const valid =
    f.valid && f.duplicates === 0
      ? ''
      : ` (INVALID: ${f.armed_before_due} armed, ${f.arrivals} arrivals, ${f.unique_event_ids} ids)`;
  return {
    rate: `${n(f.deliveries_per_s)}/s (${(f.deliveries_per_s / bare.deliveries_per_s).toFixed(3)} of bare ${n(bare.deliveries_per_s)}/s)${valid}`,
    cpu: `${n(f.server_cpu_us_per_delivery)} µs`,
    lag: `first ${f.first_lag_ms} ms, p50 ${f.p50_lag_ms} ms, p99 ${f.p99_lag_ms} ms`,
  };
}

export function ratiosReport({
  header,
  rows,
  floors,
  figures,
  sql,
}: {
  header: string;
  rows: { key: string; title: string }[];
  floors: HttpFigure[];
  figures: BuildFigures[];
  sql: { read: Floor; write: Floor };
}): string {
  const floor = summarize(floors);
  const labels = figures.map((b) => b.label);
  const compare = figures.length > 1;
  const [firstLabel, lastLabel] = [labels[0], labels.at(-1)];
  const cols = (name: string) => labels.map((l) => `${name} ${l}`);
  const lines = [
    header,
    '',
    `Empty fastify route: ${n(floor?.perS ?? null)} req/s, ${n(floor?.cpuUs ?? null)} µs server CPU per request. ` +
      "In brackets: the share of the empty route's req/s.",
    '',
    `| request | ${cols('req/s').join(' | ')} | ${cols('CPU µs/req').join(' | ')} | ${cols('p99').join(' | ')} |` +
      (compare ? ` ${lastLabel} vs ${firstLabel}: req/s, CPU |` : ''),
    `|---|${'---|'.repeat(labels.length * 3 + (compare ? 1 : 0))}`,
  ];
  for (const row of rows) {
    const s = figures.map((b) => summarize(b.rows[row.key]));
    if (s.every((x) => x === null)) {
      lines.push(`| \`${row.title}\` | skipped |`);
      continue;
    }
    const share = (x: Summary | null) =>
      x?.perS != null && floor?.perS ? ` (${(x.perS / floor.perS).toFixed(3)})` : '';
    const cells = [
      ...s.map((x) => `${n(x?.perS ?? null)}${share(x)}${x?.invalid ?? ''}`),
      ...s.map((x) => n(x?.cpuUs ?? null)),
      ...s.map((x) => `${n(x?.p99 ?? null)} ms`),
    ];
    const [a, z] = [s[0], s.at(-1)];
    const delta = compare
      ? ` ${change(a?.perS ?? null, z?.perS ?? null)}, ${change(a?.cpuUs ?? null, z?.cpuUs ?? null)} |`
      : '';
    lines.push(`| \`${row.title}\` | ${cells.join(' | ')} |${delta}`);
  }
  for (const row of rows) {
    const db = figures.map((b) => summarize(b.rows[row.key])?.dbCpuUs ?? null);
    if (db.some((v) => v !== null))
      lines.push(
        `PostgreSQL CPU per request, \`${row.title}\`: ${db.map((v, i) => `${labels[i]} ${n(v)} µs`).join(', ')}`,
      );
  }
  if (figures.some((b) => b.webhooks)) {
    const count = Number(process.env.WEBHOOK_COUNT ?? 1000).toLocaleString('en');
    lines.push(
      '',
      `| ${count} reminder webhooks due at one instant (second burst) | deliveries/s | server CPU per delivery | lag after the due instant |`,
      '|---|---|---|---|',
    );
    for (const b of figures) {
      const c = webhookCells(b.webhooks);
      lines.push(`| ${b.label} | ${c.rate} | ${c.cpu} | ${c.lag} |`);
    }
    for (const b of figures) {
      const c = webhookCells(b.webhooks?.first_burst);
      lines.push(`first burst of the fresh process, ${b.label}: ${c.rate}, ${c.cpu}, ${c.lag}`);
    }
    if (compare) {
      const [a, z] = [figures[0]?.webhooks?.figure, figures.at(-1)?.webhooks?.figure];
      lines.push(
        `${lastLabel} vs ${firstLabel}: deliveries/s ${change(a?.deliveries_per_s ?? null, z?.deliveries_per_s ?? null)}, CPU per delivery ${change(a?.server_cpu_us_per_delivery ?? null, z?.server_cpu_us_per_delivery ?? null)}`,
      );
    }
  }
  const ofFloor = (key: string, f: Floor) =>
    figures
      .map((b) => `${b.label} ${f.per_s ? n((summarize(b.rows[key])?.perS ?? 0) / f.per_s, 3) : 'skipped'}`)
      .join(', ');
  lines.push(
    '',
    "| SQL floor (raw `pg`, 50 clients) | statements/s | p99 | the request's req/s as a share of this floor |",
    '|---|---|---|---|',
    `| primary-key read of one row | ${n(sql.read.per_s)} | ${sql.read.p99_ms} ms | GET /service/tasks/{id}: ${ofFloor('task', sql.read)} |`,
    `| transaction: one row + one outbox row | ${n(sql.write.per_s)} | ${sql.write.p99_ms} ms | POST /service/tasks: ${ofFloor('create', sql.write)} |`,
  );
  return lines.join('\n');
}
