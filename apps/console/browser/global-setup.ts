import setupInfrastructure from '@routinely/testkit/global-setup';
import sparticuz from '@sparticuz/chromium';
import { startConsoleHost } from './host.js';

/**
 * Once per run: the real PostgreSQL, NATS and Redis (the same rule as the other tiers), then one all-in-one
 * serving the console at `/`. Every test registers users of its own, so they share the host. CONSOLE_BASE_URL
 * set beforehand points the tier at a running instance instead.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  // The browser is unpacked on first use; two workers unpacking it at once fail with ETXTBSY, so it is done here.
  await sparticuz.executablePath();
  if (process.env.CONSOLE_BASE_URL) return async () => {};
  const stopInfrastructure = await setupInfrastructure();
  const host = await startConsoleHost();
  process.env.CONSOLE_BASE_URL = host.baseUrl;
  process.env.CONSOLE_FAKE_GOOGLE_URL = host.fakeGoogleUrl;
  process.env.CONSOLE_FAKE_MICROSOFT_URL = host.fakeMicrosoftUrl;
  return async () => {
    await host.close();
    await stopInfrastructure();
  };
}
