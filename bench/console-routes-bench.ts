// The console's screens of ADR 102 against the budgets of ADR 100, in the Chromium of @sparticuz/chromium:
// for every route, a cold signed-in load (the JavaScript it fetched, gzipped; its Largest Contentful Paint,
// median of LOADS), then the task tree of TASKS tasks (nested five deep) expanded, collapsed and scrolled
// through, with the longest task (Long Tasks API) of each. Reports, never asserts.
// BASE_URL points at a running instance; else it starts the built all-in-one on a scratch database of
// DATABASE_URL (with NATS_URL and REDIS_URL).
//   DATABASE_URL=... REDIS_URL=... NATS_URL=... npm run bench -- console-routes-bench
import { gzipSync } from 'node:zlib';
import { testHostEnv } from '@routinely/testkit/host-env';
import { createTestDatabase } from '@routinely/testkit/infra';
import sparticuz from '@sparticuz/chromium';
import { type Browser, chromium, type Page } from 'playwright-core';
import { client, saveResults } from './lib.ts';
import { freePort, startChild, stopChild } from './processes.ts';

const TASKS = Number(process.env.TASKS ?? 1000);
const LOADS = Number(process.env.LOADS ?? 3);
const FLAGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];

/** Each route and what shows once its first screen is there. */
const ROUTES: { path: string; ready: (page: Page) => Promise<unknown> }[] = [
  { path: '/home', ready: (p) => p.getByRole('link', { name: /^Overdue / }).waitFor() },
  { path: '/calendar', ready: (p) => p.getByRole('grid').waitFor() },
  { path: '/tasks', ready: (p) => p.getByRole('treeitem').first().waitFor() },
  {
    path: '/routines',
    ready: (p) =>
      p
        .getByText(/^Current streak/)
        .first()
        .waitFor(),
  },
  { path: '/settings', ready: (p) => p.getByRole('textbox', { name: 'Monday from' }).waitFor() },
  { path: '/admin', ready: (p) => p.getByRole('row', { name: /^Database/ }).waitFor() },
];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const round = (n: number) => Math.round(n * 10) / 10;

/** A tenant admin with TASKS tasks in chains five deep (bulk import, 100 rows a call) and one daily routine. */
async function seed(target: string) {
  const email = `console-routes-bench-${Date.now()}@example.test`;
  const password = 'bench password 123';
  const tokens = await client(undefined, target)('POST', '/auth/register', {
    email,
    password,
    name: 'Bench',
    tenant_id: crypto.randomUUID(),
  });
  const api = client(tokens.access_token, target);
  // Ten imports of 100 rows: over a user's default hourly import quota, which the tenant admin raises.
  const me = await api('GET', '/auth/me');
  await api('PATCH', `/service/admin/quotas/${me.id}`, { bulk_import_per_hour: 1000, bulk_import_per_day: 1000 });
  for (let offset = 0; offset < TASKS; offset += 100) {
    const rows = Array.from({ length: Math.min(100, TASKS - offset) }, (_, k) => {
      const i = offset + k;
      return {
        ref: `t${i}`,
        title: `Task ${i + 1}`,
        priority: (i % 5) + 1,
        tags: [`tag${i % 7}`],
        ...(i % 5 === 0 ? {} : { parent_ref: `t${i - 1}` }),
      };
    });
    await api('POST', '/service/tasks/bulk-import', { rows });
  }
  await api('POST', '/service/tasks', { title: 'Stretch', recurrence: { rule: 'FREQ=DAILY' } });
  return { email, password };
}

async function coldLoad(
  browser: Browser,
  target: string,
  user: { email: string; password: string },
  route: (typeof ROUTES)[number],
) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, baseURL: target });
  const page = await context.newPage();
  const login = await page.request.post('/api/v1/auth/login', { data: user });
  if (!login.ok()) throw new Error(`login failed: ${login.status()}`);
  const scripts = new Map<string, Promise<Buffer>>();
  page.on('response', (r) => {
    if (r.request().resourceType() === 'script') scripts.set(r.url(), r.body());
  });
  await page.goto(route.path);
  await route.ready(page);
  await page.waitForLoadState('networkidle');
  const lcp = await page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        new PerformanceObserver((list) => {
          const entries = list.getEntries();
          resolve(entries[entries.length - 1]?.startTime ?? Number.NaN);
        }).observe({ type: 'largest-contentful-paint', buffered: true });
      }),
  );
  const bodies = await Promise.all([...scripts.values()]);
  return { page, lcp, gzipped: bodies.reduce((sum, b) => sum + gzipSync(b, { level: 9 }).length, 0) };
}

/** The longest task while `act` runs (0 when none reached the API's 50 ms floor). */
async function longestTask(page: Page, act: () => Promise<void>): Promise<number> {
  await page.evaluate(() => {
    const w = window as unknown as { __long: number[] };
    w.__long = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__long.push(e.duration);
    }).observe({ type: 'longtask' });
  });
  await act();
  await page.waitForTimeout(300);
  return page.evaluate(() => Math.max(0, ...(window as unknown as { __long: number[] }).__long));
}

async function main() {
  let target = process.env.BASE_URL;
  let stop = async () => {};
  if (!target) {
    const db = await createTestDatabase();
    const port = await freePort();
    target = `http://127.0.0.1:${port}`;
    const entry = new URL('../apps/all-in-one/dist/main.js', import.meta.url).pathname;
    const env = { ...process.env, ...testHostEnv(db.url, `console_routes_${Date.now()}`) };
    const child = await startChild(
      'all-in-one',
      [entry],
      { ...env, PORT: String(port), PUBLIC_BASE_URL: target, LOG_LEVEL: 'warn' },
      `${target}/readyz`,
    );
    stop = async () => {
      await stopChild(child);
      await db.drop();
    };
  }
  const browser = await chromium.launch({
    executablePath: await sparticuz.executablePath(),
    args: [
      ...sparticuz.args.filter(
        (a) => !/^--(disable-web-security|allow-running-insecure-content|single-process)/.test(a),
      ),
      ...FLAGS,
    ],
  });
  try {
    const user = await seed(target);
    const routes: Record<string, { first_screen_js_kb_gzip: number; lcp_ms_median: number; lcp_ms_each: number[] }> =
      {};
    let tasksPage: Page | undefined;
    for (const route of ROUTES) {
      const loads = [];
      for (let i = 0; i < LOADS; i += 1) {
        const load = await coldLoad(browser, target, user, route);
        loads.push(load);
        if (route.path === '/tasks' && i === LOADS - 1) tasksPage = load.page;
        else await load.page.context().close();
      }
      routes[route.path] = {
        first_screen_js_kb_gzip: round(median(loads.map((l) => l.gzipped)) / 1024),
        lcp_ms_median: round(median(loads.map((l) => l.lcp))),
        lcp_ms_each: loads.map((l) => round(l.lcp)),
      };
    }
    if (!tasksPage) throw new Error('no tasks page');
    const page = tasksPage;
    const rendered = await page.getByRole('treeitem').count();
    const collapse = await longestTask(page, () => page.getByRole('button', { name: 'Collapse all' }).click());
    const expand = await longestTask(page, async () => {
      await page.getByRole('button', { name: 'Expand all' }).click();
      await page.getByRole('treeitem', { name: /^Task 2 / }).waitFor();
    });
    const scroll = await longestTask(page, async () => {
      const tree = page.getByRole('tree', { name: 'Tasks' });
      for (let i = 0; i < 40; i += 1) {
        await tree.evaluate((el) => {
          el.scrollTop += 900;
        });
        await page.waitForTimeout(16);
      }
    });
    const figures = {
      tasks: TASKS,
      routes,
      tree_rows_in_dom: rendered,
      tree_collapse_all_longest_task_ms: round(collapse),
      tree_expand_all_longest_task_ms: round(expand),
      tree_scroll_through_longest_task_ms: round(scroll),
    };
    console.log(JSON.stringify(figures, null, 2));
    saveResults('console-routes', figures);
  } finally {
    await browser.close();
    await stop();
  }
}

await main();
