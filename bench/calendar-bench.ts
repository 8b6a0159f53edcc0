// Calendar service throughput: the calendar list and the item-window query for one user who owns
// 50 calendars holding 5,000 items. Not a timed test; the lead runs it against a running deployment.
//
//   BASE_URL=http://127.0.0.1:8080 TOKEN=<access token> npm run bench -- calendar-bench
//
// Optional env: DURATION (s, default 15), CONNECTIONS (default 20), CALENDARS (50), ITEMS (5000),
// SKIP_SEED=1 (reuse calendars named "bench-*" that an earlier run created), MOUNT (default /api/v1).
// The per-IP rate limit (100/min by default) must be raised for the run, e.g. RATE_LIMIT_PER_MINUTE=100000000
// RATE_LIMIT_PER_HOUR=100000000 RATE_LIMIT_BURST=100000000 on the server; non-2xx answers are reported.
import { benchToken, client, type Json, measure, pool, type Row, saveResults } from './lib.ts';

const CONNECTIONS = Number(process.env.CONNECTIONS ?? 20);
const CALENDARS = Number(process.env.CALENDARS ?? 50);
const ITEMS = Number(process.env.ITEMS ?? 5000);
const token = await benchToken('calendar-bench');
const api = client(token);

// Items are spread over ten weeks from Monday 2026-01-05, one hour each, at varied hours and types.
const FIRST_DAY = Date.UTC(2026, 0, 5);
const TYPES = ['meeting', 'event', 'task'];
function itemBody(n: number) {
  const day = n % 70;
  const hour = 6 + ((n * 7) % 14);
  const start = new Date(FIRST_DAY + day * 86_400_000 + hour * 3_600_000);
  return {
    type: TYPES[n % 3],
    title: `Bench item ${n}`,
    start_at: start.toISOString(),
    end_at: new Date(start.getTime() + 3_600_000).toISOString(),
  };
}

async function seed(): Promise<string[]> {
  if (process.env.SKIP_SEED === '1') {
    const page = await api('GET', '/calendars?page_size=100&include_shared=false');
    const ids: string[] = page.items.filter((c: Json) => c.name.startsWith('bench-')).map((c: Json) => c.id);
    if (ids.length === 0) throw new Error('SKIP_SEED=1 but no bench-* calendars exist');
    return ids;
  }
  const run = Date.now().toString(36);
  const started = performance.now();
  const calendars = await pool(
    Array.from({ length: CALENDARS }, (_, i) => i),
    10,
    (i) => api('POST', '/calendars', { name: `bench-${run}-${String(i).padStart(2, '0')}`, timezone: 'UTC' }),
  );
  const ids: string[] = calendars.map((c) => c.id);
  await pool(
    Array.from({ length: ITEMS }, (_, n) => n),
    20,
    (n) => api('POST', `/calendars/${ids[n % ids.length]}/items`, itemBody(n)),
  );
  console.log(
    `seeded ${ids.length} calendars and ${ITEMS} items in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return ids;
}

const ids = await seed();
const weeks = Array.from({ length: 10 }, (_, w) => {
  const from = new Date(FIRST_DAY + w * 7 * 86_400_000).toISOString().slice(0, 10);
  const to = new Date(FIRST_DAY + (w * 7 + 6) * 86_400_000).toISOString().slice(0, 10);
  return `start_date=${from}&end_date=${to}`;
});
const scenarios: [string, string[]][] = [
  [
    'list page_size=20 (sorted by name)',
    ['/calendars?page_size=20', '/calendars?page_size=20&page=2', '/calendars?page_size=20&page=3'],
  ],
  ['list page_size=100 sort_by=updated_at desc', ['/calendars?page_size=100&sort_by=updated_at&sort_order=desc']],
  ['item window, one week (~10 items)', ids.flatMap((id) => weeks.map((w) => `/calendars/${id}/items?${w}`))],
  [
    'item window, all ten weeks (100 items)',
    ids.map((id) => `/calendars/${id}/items?start_date=2026-01-05&end_date=2026-03-15`),
  ],
  [
    'item window, one week, meetings only',
    ids.map((id, n) => `/calendars/${id}/items?${weeks[n % 10]}&item_types=meeting`),
  ],
];
const results: Row[] = [];
for (const [title, paths] of scenarios) {
  results.push(await measure(title, { paths, token, connections: CONNECTIONS }));
}
saveResults('calendar', { calendars: ids.length, items: ITEMS, rows: results });
