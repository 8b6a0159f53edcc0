// The browser tier of `npm test` (scripts/toolchain.mjs runs it after the vitest tiers): Playwright Test driving
// the Chromium of @sparticuz/chromium (browser/fixtures.ts) against one all-in-one the global setup starts.
// Two workers for a 2-core machine; the browser runs in another timezone than the users' settings (America/New_York)
// so a block placed by the browser's clock instead of the settings' would be caught.
import { defineConfig } from '@playwright/test';

const root = new URL('../../', import.meta.url).pathname;

export default defineConfig({
  testDir: './browser',
  testMatch: '*.spec.ts',
  globalSetup: './browser/global-setup.ts',
  workers: 2,
  fullyParallel: true,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  forbidOnly: !!process.env.CI,
  outputDir: `${root}test-results/browser-artifacts`,
  reporter: [['list'], ['json', { outputFile: `${root}test-results/browser.json` }]],
  use: {
    timezoneId: 'Asia/Tokyo',
    locale: 'en-GB',
    viewport: { width: 1440, height: 900 },
    // A trace is recorded for every test to keep the failing ones; it cost a quarter of the tier's CPU (171 -> 128
    // CPU seconds without it). CI keeps only the output, where a trace cannot be opened, so it records none.
    trace: process.env.CI ? 'off' : 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
});
