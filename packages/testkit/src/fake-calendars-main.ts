#!/usr/bin/env node
// Runs the Google and Microsoft calendar fakes for trying integrations locally:
// `node packages/testkit/dist/fake-calendars-main.js`, then start the service with the environment it prints
// (see README, "Calendar integrations locally").
import { FakeGoogle } from './fake-google.js';
import { FakeMicrosoft } from './fake-microsoft.js';

const publicBaseUrl = (process.env.PUBLIC_BASE_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
const host = process.env.FAKE_CALENDARS_HOST ?? '127.0.0.1';
const google = new FakeGoogle();
const microsoft = new FakeMicrosoft();
microsoft.rotateRefreshTokens = true;
for (const [fake, port] of [
  [google, Number(process.env.FAKE_GOOGLE_PORT ?? 9410)],
  [microsoft, Number(process.env.FAKE_MICROSOFT_PORT ?? 9411)],
] as const) {
  fake.registerRoutes();
  await fake.listen(host, port);
}
const now = Date.now();
const hour = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
google.addEvent({
  summary: 'Fake Google meeting',
  start: { dateTime: iso(now + 2 * hour) },
  end: { dateTime: iso(now + 3 * hour) },
});
microsoft.addEvent({
  subject: 'Fake Outlook meeting',
  start: { dateTime: iso(now + 4 * hour).slice(0, 19), timeZone: 'UTC' },
  end: { dateTime: iso(now + 5 * hour).slice(0, 19), timeZone: 'UTC' },
});

const env = { ...google.env(), ...microsoft.env(), PUBLIC_BASE_URL: publicBaseUrl };
process.stdout.write(
  [
    `fake Google at ${google.baseUrl} (account ${google.email}), fake Microsoft at ${microsoft.baseUrl} (account ${microsoft.email})`,
    '',
    'start the service with:',
    `  ${Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join(' \\\n  ')} \\\n  npm start`,
    '',
    `add an event: curl -X POST ${google.baseUrl}/_fake/events -H 'content-type: application/json' \\`,
    `  -d '{"summary":"Lunch","start":{"dateTime":"2026-11-24T12:00:00Z"},"end":{"dateTime":"2026-11-24T13:00:00Z"}}'`,
    `push it: curl -X POST ${google.baseUrl}/_fake/notify   (Microsoft: the same paths on ${microsoft.baseUrl})`,
    '',
  ].join('\n'),
);

const stop = async () => {
  await google.close();
  await microsoft.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
