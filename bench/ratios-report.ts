// The tables ratios.ts prints: per build, each row's median over the rounds; with two builds or more, the
// last build's change against the first's. The first burst of each build's webhook row is printed apart.
import type { Row } from './lib.ts';
import type { Floor } from './sql-floor.ts';
import type { BareLoopFigure, WebhookFigure } from './webhook-ratio.ts';

export interface HttpFigure extends Row {
  server_cpu_us_per_request: number | null;
  db_cpu_us_per_request?: number | null;
}

/** One burst of the webhook row and the bare loop measured right after it. */
export interface WebhookPair {
  figure: WebhookFigure;
  bare: BareLoopFigure;
}

export interface BuildFigures {
  label: string;
  /** Per row key, one figure per round. */
  rows: Record<string, HttpFigure[]>;
  /** The first burst of the fresh process, printed apart. */
  firstBurst?: WebhookPair;
  /** One burst per round after the first. */
  webhooks?: WebhookPair[];
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

interface WebhookSummary {
  perS: number | null;
  share: number | null;
  bare: number | null;
  cpuUs: number | null;
  lag: string;
  invalid: string;
}

/** Medians over the bursts: deliveries/s, its share of the bare loop measured right after each, CPU, lags. */
function summarizeBursts(pairs: WebhookPair[] | undefined): WebhookSummary | null {
  if (!pairs?.length) return null;
  const invalid = pairs.filter(({ figure: f }) => !f.valid || f.duplicates > 0).length;
  const lag = (pick: (f: WebhookFigure) => number) => n(median(pairs.map((p) => pick(p.figure))));
  return {
    perS: median(pairs.map((p) => p.figure.deliveries_per_s)),
    share: median(
      pairs.map((p) => (p.bare.deliveries_per_s ? p.figure.deliveries_per_s / p.bare.deliveries_per_s : null)),
    ),
    bare: median(pairs.map((p) => p.bare.deliveries_per_s)),
    cpuUs: median(pairs.map((p) => p.figure.server_cpu_us_per_delivery)),
    lag: `first ${lag((f) => f.first_lag_ms)} ms, p50 ${lag((f) => f.p50_lag_ms)} ms, p99 ${lag((f) => f.p99_lag_ms)} ms`,
    invalid: invalid ? ` (INVALID: ${invalid} of ${pairs.length} bursts not each event once)` : '',
  };
}

const webhookLine = (label: string, s: WebhookSummary | null) =>
  s
    ? `| ${label} | ${n(s.perS)}/s (${n(s.share, 3)} of the bare loop's ${n(s.bare)}/s)${s.invalid} | ${n(s.cpuUs)} µs | ${s.lag} |`
    : `| ${label} | skipped | skipped | skipped |`;

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
    const bursts = figures[0]?.webhooks?.length ?? 0;
    lines.push(
      '',
      `| ${count} reminder webhooks due at one instant (median of ${bursts} burst(s) after the first) | ` +
        'deliveries/s | server CPU per delivery | lag after the due instant |',
      '|---|---|---|---|',
      ...figures.map((b) => webhookLine(b.label, summarizeBursts(b.webhooks))),
      ...figures.map((b) =>
        webhookLine(`${b.label}: first burst of the fresh process`, summarizeBursts(b.firstBurst && [b.firstBurst])),
      ),
    );
    if (compare) {
      const [a, z] = [summarizeBursts(figures[0]?.webhooks), summarizeBursts(figures.at(-1)?.webhooks)];
      lines.push(
        '',
        `${lastLabel} vs ${firstLabel}: deliveries/s ${change(a?.perS ?? null, z?.perS ?? null)}, share of the bare ` +
          `loop ${change(a?.share ?? null, z?.share ?? null)}, CPU per delivery ${change(a?.cpuUs ?? null, z?.cpuUs ?? null)}`,
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
