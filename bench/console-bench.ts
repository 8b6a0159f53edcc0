// The console's speed budgets (ADR 100), in the Chromium of @sparticuz/chromium (headless), against the
// all-in-one serving the console at `/`: one user holding a week of 500 blocks. Reports, never asserts:
//   first-screen JavaScript (gzipped, the bytes of every script the signed-in week loads), Largest Contentful
//   Paint of that first load (cold cache, median of LOADS), a drag's Interaction to Next Paint (Event Timing,
//   worst interaction of each drag, median of DRAGS) and the longest animation frame while dragging, switching
//   weeks (click to the next frame with the other week on screen, median of SWITCHES), the grid's DOM nodes.
// BASE_URL points at a running instance (it must serve the console); else it starts the built all-in-one on a
// scratch database of DATABASE_URL (with NATS_URL and REDIS_URL), as the ratios bench does.
//   DATABASE_URL=... REDIS_URL=... NATS_URL=... npm run bench -- console-bench
import { gzipSync } from 'node:zlib';
import { testHostEnv } from '@routinely/testkit/host-env';
import { createTestDatabase } from '@routinely/testkit/infra';
import sparticuz from '@sparticuz/chromium';
import { type Browser, chromium, type Page } from 'playwright-core';
import { client, pool, saveResults } from './lib.ts';
import { freePort, startChild, stopChild } from './processes.ts';

const BLOCKS = Number(process.env.BLOCKS ?? 500);
const LOADS = Number(process.env.LOADS ?? 5);
const DRAGS = Number(process.env.DRAGS ?? 5);
const SWITCHES = Number(process.env.SWITCHES ?? 10);
const TZ = 'America/New_York';
const FLAGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const round = (n: number) => Math.round(n * 10) / 10;

/** Monday of next week in the user's timezone, as YYYY-MM-DD, and an instant of a wall-clock minute of it. */
function nextWeek() {
  const today = new Date();
  const monday = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()));
  monday.setUTCDate(monday.getUTCDate() + (8 - (monday.getUTCDay() || 7)));
  const iso = monday.toISOString().slice(0, 10);
  // Noon UTC of each day is the same date in New York; its offset then gives the local wall clock.
  const at = (day: number, minute: number) => {
    const noon = new Date(monday.getTime() + day * 86_400_000 + 12 * 3_600_000);
    const offset = Number(
      new Intl.DateTimeFormat('en-US', { timeZone: TZ, timeZoneName: 'shortOffset' })
        .formatToParts(noon)
        .find((p) => p.type === 'timeZoneName')
        ?.value.replace('GMT', '') || 0,
    );
    return new Date(monday.getTime() + day * 86_400_000 + (minute - offset * 60) * 60_000).toISOString();
  };
  return { iso, at };
}

/** A user with BLOCKS scheduled tasks spread over next week, 07:00 to 21:00, 15 to 60 minutes each. */
async function seed(target: string) {
  const email = `console-bench-${Date.now()}@example.test`;
  const password = 'bench password 123';
  const tokens = await client(undefined, target)('POST', '/auth/register', { email, password, name: 'Bench' });
  const api = client(tokens.access_token, target);
  await api('PATCH', '/service/settings/me', { timezone: TZ });
  const week = nextWeek();
  const ids: string[] = [];
  for (let offset = 0; offset < BLOCKS; offset += 100) {
    const rows = Array.from({ length: Math.min(100, BLOCKS - offset) }, (_, i) => ({
      title: `Block ${offset + i + 1}`,
      priority: ((offset + i) % 5) + 1,
      duration_min: 15 * (((offset + i) % 4) + 1),
    }));
    const result = await api('POST', '/service/tasks/bulk-import', { rows });
    ids.push(...result.created_ids);
  }
  await pool(ids, 8, async (id, i) => {
    const day = i % 7;
    const start = 7 * 60 + ((Math.floor(i / 7) * 11) % (14 * 60));
    const length = 15 * ((i % 4) + 1);
    await api('PATCH', `/service/tasks/${id}`, {
      chosen_slot_start: week.at(day, start),
      chosen_slot_end: week.at(day, start + length),
    });
  });
  return { email, password, week };
}

async function signedInPage(browser: Browser, target: string, user: { email: string; password: string }) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, baseURL: target });
  const page = await context.newPage();
  const answer = await page.request.post('/api/v1/auth/login', {
    data: { email: user.email, password: user.password },
  });
  if (!answer.ok()) throw new Error(`login failed: ${answer.status()}`);
  return page;
}

/** One cold load of the week: scripts it fetched (bytes, gzipped) and its LCP. */
async function coldLoad(browser: Browser, target: string, user: { email: string; password: string }, path: string) {
  const page = await signedInPage(browser, target, user);
  const scripts = new Map<string, Promise<Buffer>>();
  page.on('response', (response) => {
    if (response.request().resourceType() === 'script') scripts.set(response.url(), response.body());
  });
  await page.goto(path);
  await page.getByRole('button', { name: /^Block 1, / }).waitFor();
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
  const raw = bodies.reduce((sum, b) => sum + b.length, 0);
  const gzipped = bodies.reduce((sum, b) => sum + gzipSync(b, { level: 9 }).length, 0);
  return { page, lcp, scripts: scripts.size, raw, gzipped };
}

/** Drags the first block of Monday to Tuesday, and reports the worst Event Timing interaction and frame. */
async function dragOnce(page: Page, index: number) {
  await page.evaluate(() => {
    const w = window as unknown as { __events: number[]; __frames: number[] };
    w.__events = [];
    w.__frames = [];
    new PerformanceObserver((list) => {
      // interactionId (Event Timing level 2) is newer than TypeScript's DOM typings.
      for (const e of list.getEntries() as (PerformanceEventTiming & { interactionId?: number })[])
        if (e.interactionId) w.__events.push(e.duration);
    }).observe({ type: 'event', durationThreshold: 16, buffered: true } as PerformanceObserverInit);
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__frames.push(e.duration);
    }).observe({ type: 'long-animation-frame' } as PerformanceObserverInit);
  });
  const block = page.getByRole('button', { name: new RegExp(`^Block ${index * 7 + 1}, `) });
  const box = await block.boundingBox();
  const tuesday = await page
    .getByRole('columnheader')
    .nth(2 + (index % 5))
    .boundingBox();
  if (!box || !tuesday) throw new Error('nothing to drag');
  await page.mouse.move(box.x + box.width / 2, box.y + 5);
  await page.mouse.down();
  for (let i = 1; i <= 10; i += 1) {
    await page.mouse.move(box.x + ((tuesday.x + 20 - box.x) * i) / 10, box.y + 5 + i * 3);
  }
  await page.mouse.up();
  await page.waitForTimeout(1500);
  return page.evaluate(() => {
    const w = window as unknown as { __events: number[]; __frames: number[] };
    return { inp: Math.max(0, ...w.__events), frame: Math.max(0, ...w.__frames) };
  });
}

/** Click on "Next week" (or "Previous week") to the frame after the other week's title is on screen. */
async function switchOnce(page: Page, direction: 'Next week' | 'Previous week') {
  return page.evaluate(
    (label) =>
      new Promise<number>((resolve) => {
        const title = document.querySelector('.cal-title');
        const before = title?.textContent;
        const link = [...document.querySelectorAll('a')].find((a) => a.getAttribute('aria-label') === label);
        const start = performance.now();
        const observer = new MutationObserver(() => {
          if (document.querySelector('.cal-title')?.textContent === before) return;
          observer.disconnect();
          requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - start)));
        });
        observer.observe(document.body, { subtree: true, childList: true, characterData: true });
        link?.click();
      }),
    direction,
  );
}

async function main() {
  let target = process.env.BASE_URL;
  let stop = async () => {};
  if (!target) {
    const db = await createTestDatabase();
    const port = await freePort();
    target = `http://127.0.0.1:${port}`;
    const main = new URL('../apps/all-in-one/dist/main.js', import.meta.url).pathname;
    const child = await startChild(
      'all-in-one',
      [main],
      {
        ...process.env,
        ...testHostEnv(db.url, `console_bench_${Date.now()}`),
        PORT: String(port),
        PUBLIC_BASE_URL: target,
        LOG_LEVEL: 'warn',
      },
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
    const path = `/calendar/week/${user.week.iso}`;
    const loads = [];
    for (let i = 0; i < LOADS; i += 1) {
      const load = await coldLoad(browser, target, user, path);
      loads.push(load);
      if (i < LOADS - 1) await load.page.context().close();
    }
    const page = loads[loads.length - 1]?.page;
    if (!page) throw new Error('no page');
    const nodes = await page.evaluate(() => document.querySelector('[role="grid"]')?.querySelectorAll('*').length ?? 0);
    const blocks = await page.evaluate(() => document.querySelectorAll('[role="grid"] button[data-id]').length);
    const switches: number[] = [];
    for (let i = 0; i < SWITCHES; i += 1) {
      switches.push(await switchOnce(page, 'Next week'));
      switches.push(await switchOnce(page, 'Previous week'));
    }
    await page.getByRole('button', { name: /^Block 1, / }).waitFor();
    const drags = [];
    for (let i = 0; i < DRAGS; i += 1) drags.push(await dragOnce(page, i));
    const figures = {
      blocks_on_screen: blocks,
      grid_dom_nodes: nodes,
      first_screen_js_kb_gzip: round(median(loads.map((l) => l.gzipped)) / 1024),
      first_screen_js_kb_raw: round(median(loads.map((l) => l.raw)) / 1024),
      first_screen_scripts: loads[0]?.scripts,
      lcp_ms_median: round(median(loads.map((l) => l.lcp))),
      lcp_ms_each: loads.map((l) => round(l.lcp)),
      // Event Timing reports nothing under 16 ms: 0 means every interaction of the drag was faster than that.
      drag_inp_ms_median: round(median(drags.map((d) => d.inp))),
      drag_inp_ms_each: drags.map((d) => round(d.inp)),
      drag_longest_frame_ms_median: round(median(drags.map((d) => d.frame))),
      week_switch_ms_median: round(median(switches)),
      week_switch_ms_max: round(Math.max(...switches)),
    };
    console.log(JSON.stringify(figures, null, 2));
    saveResults('console', figures);
  } finally {
    await browser.close();
    await stop();
  }
}

await main();
