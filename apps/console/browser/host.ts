import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { FakeGoogle } from '@routinely/testkit/fake-google';
import { FakeIdp } from '@routinely/testkit/fake-idp';
import { FakeLlmServer, fakeLlmEnv } from '@routinely/testkit/fake-llm';
import { FakeMicrosoft } from '@routinely/testkit/fake-microsoft';
import { testHostEnv } from '@routinely/testkit/host-env';
import { createTestDatabase, uniqueName } from '@routinely/testkit/infra';

/** The single sign-on account the SSO flow signs in with (the fake provider's, not a Routinely password). */
export const SSO_ACCOUNT = { email: 'sso-person@example.test', password: 'sso-person-password' };
const CLIENT_ID = 'routinely-console';
const CLIENT_SECRET = 'browser-tier-sso-client-secret';
/** `npm start`'s entry point, built by `npm test` before the tiers run. */
const ENTRY = new URL('../../all-in-one/dist/main.js', import.meta.url).pathname;

/** A free loopback port: the console's origin must be known before the host starts (PUBLIC_BASE_URL). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function untilHealthy(child: ChildProcess, baseUrl: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the all-in-one exited with ${child.exitCode}`);
    const ok = await fetch(`${baseUrl}/api/v1/auth/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  child.kill('SIGKILL');
  throw new Error('the all-in-one did not become healthy in 90 s');
}

/**
 * The all-in-one the browser tier drives: `npm start`'s own process (its built entry point), on a fresh
 * database, JetStream namespace and Redis key space of the real servers, with the identity provider fake of the
 * testkit behind "Continue with single sign-on".
 */
export async function startConsoleHost(env: Record<string, string> = {}) {
  const idp = await FakeIdp.start();
  // The Google Calendar fake behind "Connect Google Calendar" (consent at once for its one account); a test adds
  // its events through the fake's `/_fake/events`, found at CONSOLE_FAKE_GOOGLE_URL.
  const google = await FakeGoogle.start();
  // The same for "Connect Microsoft Outlook" (CONSOLE_FAKE_MICROSOFT_URL), and the model APIs' fake behind the
  // "openai" provider, so a plan with it is a priced model call that the spend chart shows.
  const microsoft = await FakeMicrosoft.start();
  const llm = await FakeLlmServer.start();
  const db = await createTestDatabase();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  idp.addClient({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUris: [`${baseUrl}/api/v1/auth/sso/callback`],
    postLogoutRedirectUris: [`${baseUrl}/`],
    backchannelLogoutUri: `${baseUrl}/api/v1/auth/sso/back-channel-logout`,
  });
  idp.addAccount({ ...SSO_ACCOUNT, givenName: 'Sso', familyName: 'Person' });
  const child = spawn(process.execPath, [ENTRY], {
    env: {
      ...process.env,
      ...testHostEnv(db.url, uniqueName('console')),
      PORT: String(port),
      PUBLIC_BASE_URL: baseUrl,
      SSO_ISSUER_URL: idp.issuer,
      SSO_CLIENT_ID: CLIENT_ID,
      SSO_CLIENT_SECRET: CLIENT_SECRET,
      SSO_ADMIN_API_URL: idp.adminUrl,
      ...google.env(),
      ...microsoft.env(),
      ...fakeLlmEnv(llm),
      // The browser tier's webhook receiver listens on loopback over http.
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  await untilHealthy(child, baseUrl);
  return {
    baseUrl,
    fakeGoogleUrl: google.baseUrl,
    fakeMicrosoftUrl: microsoft.baseUrl,
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      await idp.close();
      await google.close();
      await microsoft.close();
      await llm.close();
      await db.drop();
    },
  };
}
