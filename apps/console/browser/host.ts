import { createServer } from 'node:net';
import { startAllInOne } from '@routinely/all-in-one';
import { FakeIdp } from '@routinely/testkit/fake-idp';
import { testHostEnv } from '@routinely/testkit/host-env';
import { createTestDatabase, quietLogger, uniqueName } from '@routinely/testkit/infra';

/** The single sign-on account the SSO flow signs in with (the fake provider's, not a Routinely password). */
export const SSO_ACCOUNT = { email: 'sso-person@example.test', password: 'sso-person-password' };
const CLIENT_ID = 'routinely-console';
const CLIENT_SECRET = 'browser-tier-sso-client-secret';

/** A free loopback port: the console's origin must be known before the host starts (PUBLIC_BASE_URL). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * The all-in-one the browser tier drives, as `npm start` runs it but on a fresh database, JetStream namespace
 * and Redis key space, with the identity provider fake of the testkit behind "Continue with single sign-on".
 */
export async function startConsoleHost(env: Record<string, string> = {}) {
  const idp = await FakeIdp.start();
  const db = await createTestDatabase();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const running = await startAllInOne({
    env: {
      ...process.env,
      ...testHostEnv(db.url, uniqueName('console')),
      PORT: String(port),
      PUBLIC_BASE_URL: baseUrl,
      SSO_ISSUER_URL: idp.issuer,
      SSO_CLIENT_ID: CLIENT_ID,
      SSO_CLIENT_SECRET: CLIENT_SECRET,
      SSO_ADMIN_API_URL: idp.adminUrl,
      ...env,
    },
    logger: quietLogger(),
  });
  idp.addClient({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUris: [`${baseUrl}/api/v1/auth/sso/callback`],
    postLogoutRedirectUris: [`${baseUrl}/`],
    backchannelLogoutUri: `${baseUrl}/api/v1/auth/sso/back-channel-logout`,
  });
  idp.addAccount({ ...SSO_ACCOUNT, givenName: 'Sso', familyName: 'Person' });
  return {
    baseUrl,
    close: async () => {
      await running.close();
      await idp.close();
      await db.drop();
    },
  };
}
