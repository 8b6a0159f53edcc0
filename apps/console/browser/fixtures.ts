import AxeBuilder from '@axe-core/playwright';
import { type Browser, test as base, chromium, expect, type Locator, type Page } from '@playwright/test';
import { type ApiClient, createApiClient } from '@routinely/api-client';
import sparticuz from '@sparticuz/chromium';
import { Temporal } from 'temporal-polyfill';
import { longDay } from '../src/time/zone.js';

/** The user's settings timezone in every test; the browser runs in another one (playwright.config.ts). */
export const USER_TZ = 'America/New_York';
export const HOUR_PX = 48;

/**
 * Chromium comes with `npm install` (the npm package @sparticuz/chromium, unpacked on first use), not from a
 * download step or the system. Its serverless flags that switch browser security off are left out: the
 * console is tested as a browser runs it; the rest are the flags this machine's closed network needs.
 */
const DROPPED = /^--(disable-web-security|allow-running-insecure-content|single-process)/;
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: await sparticuz.executablePath(),
    args: [...sparticuz.args.filter((arg) => !DROPPED.test(arg)), ...FLAGS],
  });
}

export interface Person {
  email: string;
  password: string;
  name: string;
  /** The typed client with this person's bearer token, for setting the scene (never for what a test checks). */
  api: ApiClient;
}

let counter = 0;

/**
 * A new account through the API, in the settings timezone USER_TZ: in the deployment's default tenant, or with
 * `tenant` in a tenant of its own (a new tenant id makes the person its admin; an invite's token joins one).
 */
export async function registerPerson(
  baseUrl: string,
  name = 'Ada Lovelace',
  tenant: { tenant_id?: string; invite_token?: string } = {},
): Promise<Person> {
  counter += 1;
  const email = `ada-${process.pid}-${counter}-${Date.now()}@example.test`;
  const password = 'correct horse battery staple';
  const anonymous = createApiClient({ baseUrl });
  const registered = await anonymous.POST('/api/v1/auth/register', { body: { email, password, name, ...tenant } });
  if (!registered.data) throw new Error(`register failed: ${JSON.stringify(registered.error)}`);
  const api = createApiClient({ baseUrl, token: registered.data.access_token });
  const settings = await api.PATCH('/api/v1/service/settings/me', { body: { timezone: USER_TZ } });
  if (!settings.data) throw new Error(`settings failed: ${JSON.stringify(settings.error)}`);
  return { email, password, name, api };
}

export const test = base.extend<{ person: Person; cspGuard: undefined }, { browser: Browser; baseUrl: string }>({
  // The host's address is known only after the global setup started it.
  baseURL: async ({ baseUrl }, use) => use(baseUrl),
  // Every page of every test: a Content-Security-Policy violation (an inline script or style, another origin)
  // fails the test, so the console is known to run under the policy the server sends.
  cspGuard: [
    async ({ context }, use) => {
      const violations: string[] = [];
      const watch = (page: Page) =>
        page.on('console', (message) => {
          if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
        });
      context.pages().forEach(watch);
      context.on('page', watch);
      await use(undefined);
      expect(violations, 'CSP violations').toEqual([]);
    },
    { auto: true },
  ],
  baseUrl: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright's fixture signature
    async ({}, use) => {
      const url = process.env.CONSOLE_BASE_URL;
      if (!url) throw new Error('CONSOLE_BASE_URL is not set (the global setup starts the host)');
      await use(url);
    },
    { scope: 'worker' },
  ],
  browser: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright's fixture signature
    async ({}, use) => {
      const browser = await launchChromium();
      await use(browser);
      await browser.close();
    },
    { scope: 'worker' },
  ],
  person: async ({ baseUrl }, use) => {
    await use(await registerPerson(baseUrl));
  },
});

export { expect };

/** Signs the page's context in through the API (the HttpOnly cookies land in the browser), then opens `path`. */
export async function signIn(page: Page, person: Person, path: string): Promise<void> {
  const answer = await page.request.post('/api/v1/auth/login', {
    data: { email: person.email, password: person.password },
  });
  expect(answer.status()).toBe(200);
  await page.goto(path);
}

/** The sign-in form filled and sent as a person does it (the page shows the form). */
export async function fillSignIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByRole('textbox', { name: 'Password' }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Signs out through the account menu; the sign-in page follows. */
export async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Account' }).click();
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
}

/** The address of a fake the global setup started (CONSOLE_FAKE_GOOGLE_URL, CONSOLE_FAKE_MICROSOFT_URL). */
export function fakeUrl(variable: 'CONSOLE_FAKE_GOOGLE_URL' | 'CONSOLE_FAKE_MICROSOFT_URL'): string {
  const url = process.env[variable];
  if (!url) throw new Error(`${variable} is not set (the global setup starts the fake)`);
  return url;
}

/** axe-core over the page for WCAG 2.0/2.1/2.2 A and AA: no violation, listed by rule and element when there is. */
export async function expectAccessible(page: Page, state: string): Promise<void> {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa'])
    .options({ resultTypes: ['violations'] })
    .analyze();
  const found = result.violations.map(
    (v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
  );
  expect(found, `axe violations on ${state}`).toEqual([]);
}

/** Today in the user's timezone, and the Monday of the week after this one (always ahead, so plannable). */
export function nextMonday(): Temporal.PlainDate {
  const today = Temporal.Now.plainDateISO(USER_TZ);
  return today.add({ days: 8 - today.dayOfWeek });
}

/** An ISO instant of a wall-clock time on a local date in the user's timezone. */
export function at(date: Temporal.PlainDate, time: string): string {
  return date.toPlainDateTime(Temporal.PlainTime.from(time)).toZonedDateTime(USER_TZ).toInstant().toString();
}

export const weekPath = (monday: Temporal.PlainDate) => `/calendar/week/${monday.toString()}`;

/** A task block by the start of its accessible name ("Title, Weekday HH:MM to HH:MM"). */
export function block(page: Page, title: string): Locator {
  return page.getByRole('grid').getByRole('button', { name: new RegExp(`^${title}, `) });
}

/** The column of a day: its header ("Tuesday 1 December") gives x and width, the hours' row header the top. */
export async function dayColumn(page: Page, date: Temporal.PlainDate) {
  const name = longDay(date);
  const [head, hours] = await Promise.all([
    page.getByRole('columnheader', { name, exact: true }).boundingBox(),
    page.getByRole('rowheader', { name: 'Hours' }).boundingBox(),
  ]);
  if (!head || !hours) throw new Error(`no column for ${date.toString()}`);
  return { x: head.x, width: head.width, y: hours.y };
}

/** Where on screen a wall-clock minute of a day is (the middle of the column). */
export async function pointOf(page: Page, date: Temporal.PlainDate, minutes: number) {
  const column = await dayColumn(page, date);
  return { x: column.x + column.width / 2, y: column.y + (minutes / 60) * HOUR_PX };
}

/** A mouse drag in small steps, as a person makes it. */
export async function drag(page: Page, from: { x: number; y: number }, to: { x: number; y: number }): Promise<void> {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  const steps = 8;
  for (let i = 1; i <= steps; i += 1) {
    await page.mouse.move(from.x + ((to.x - from.x) * i) / steps, from.y + ((to.y - from.y) * i) / steps);
  }
  await page.mouse.up();
}

/** Creates a task and gives it a slot through the API (setting the scene). */
export async function scheduledTask(person: Person, title: string, start: string, end: string, priority = 3) {
  const created = await person.api.POST('/api/v1/service/tasks', { body: { title, priority, duration_min: 30 } });
  if (!created.data) throw new Error(`create failed: ${JSON.stringify(created.error)}`);
  const patched = await person.api.PATCH('/api/v1/service/tasks/{task_id}', {
    params: { path: { task_id: created.data.id } },
    body: { chosen_slot_start: start, chosen_slot_end: end },
  });
  if (!patched.data) throw new Error(`schedule failed: ${JSON.stringify(patched.error)}`);
  return patched.data;
}
