#!/usr/bin/env node
// Runs the fake identity provider for trying single sign-on locally: `node packages/testkit/dist/fake-idp-main.js`
// then start the service with the environment it prints (see README, "Single sign-on").
import { FakeIdp } from './fake-idp.js';

const port = Number(process.env.FAKE_IDP_PORT ?? 9400);
const publicBaseUrl = (process.env.PUBLIC_BASE_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
const clientId = process.env.SSO_CLIENT_ID ?? 'routinely';
const clientSecret = process.env.SSO_CLIENT_SECRET ?? 'local-fake-idp-secret';
const email = process.env.FAKE_IDP_USER_EMAIL ?? 'demo@example.test';
const password = process.env.FAKE_IDP_USER_PASSWORD ?? 'demo-password';

const idp = await FakeIdp.start({ port, host: process.env.FAKE_IDP_HOST ?? '127.0.0.1' });
idp.addClient({
  clientId,
  clientSecret,
  redirectUris: [`${publicBaseUrl}/api/v1/auth/sso/callback`],
  postLogoutRedirectUris: [`${publicBaseUrl}/`],
  backchannelLogoutUri: `${publicBaseUrl}/api/v1/auth/sso/back-channel-logout`,
  roles: [
    { name: 'user', description: 'Regular user' },
    { name: 'admin', description: 'Tenant administrator' },
  ],
});
idp.addAccount({ email, password, givenName: 'Demo', familyName: 'User', clientRoles: { [clientId]: ['user'] } });

process.stdout.write(
  [
    `fake identity provider at ${idp.issuer}`,
    `sign in as ${email} / ${password} (or sign up through /api/v1/auth/sso/register)`,
    '',
    'start the service with:',
    `  SSO_ISSUER_URL=${idp.issuer} SSO_CLIENT_ID=${clientId} SSO_CLIENT_SECRET=${clientSecret} \\`,
    `  SSO_ADMIN_API_URL=${idp.adminUrl} PUBLIC_BASE_URL=${publicBaseUrl} npm start`,
    `then open ${publicBaseUrl}/api/v1/auth/sso/login`,
    '',
  ].join('\n'),
);

const stop = async () => {
  await idp.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
