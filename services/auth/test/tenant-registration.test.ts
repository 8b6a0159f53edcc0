import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, register, STRONG_PASSWORD, uniqueEmail } from './harness.js';
import { CLIENT_ID, newAccount, type SsoHarness, startSso } from './sso-harness.js';

let s: SsoHarness;
beforeAll(async () => {
  s = await startSso();
});
afterAll(() => s?.close());

const now = () => Math.floor(Date.now() / 1000);

async function tenantWithAdmin() {
  const tenant = crypto.randomUUID();
  const admin = await register(s.h.app, { tenant_id: tenant });
  return { tenant, admin: bearer(admin.access) };
}

const tryRegister = (body: Record<string, unknown>) =>
  s.h.app.inject({ method: 'POST', url: '/api/v1/auth/register', payload: { password: STRONG_PASSWORD, ...body } });

const invite = (headers: Record<string, string>, body: Record<string, unknown> = {}) =>
  s.h.app.inject({ method: 'POST', url: '/api/v1/auth/tenant/invites', headers, payload: body });

describe('joining a tenant', () => {
  it('refuses strangers by default (invite policy): 403 registration_closed', async () => {
    const { tenant, admin } = await tenantWithAdmin();
    const stranger = await tryRegister({ email: uniqueEmail(), tenant_id: tenant });
    expect(stranger.statusCode).toBe(403);
    expect(stranger.headers['content-type']).toContain('application/problem+json');
    expect(stranger.json().code).toBe('registration_closed');
    const policy = await s.h.app.inject({ url: '/api/v1/auth/tenant', headers: admin });
    expect(policy.statusCode).toBe(200);
    expect(policy.json()).toMatchObject({ tenant_id: tenant, registration: 'invite', allowed_email_domains: [] });
  });

  it('admits with a single-use invitation bound to an email, with its role; used, revoked and expired ones fail', async () => {
    const { tenant, admin } = await tenantWithAdmin();
    const email = uniqueEmail();
    const created = await invite(admin, { email, role: 'admin' });
    expect(created.statusCode).toBe(201);
    const inv = created.json();
    expect(inv).toMatchObject({ email, role: 'admin' });
    expect(Date.parse(inv.expires_at) - Date.now()).toBeGreaterThan(6.9 * 24 * 3600 * 1000);
    const listed = await s.h.app.inject({ url: '/api/v1/auth/tenant/invites', headers: admin });
    expect(listed.json().map((i: { id: string }) => i.id)).toContain(inv.id);
    expect(JSON.stringify(listed.json())).not.toContain(inv.token);

    const wrongEmail = await tryRegister({ email: uniqueEmail(), tenant_id: tenant, invite_token: inv.token });
    expect(wrongEmail.json().code).toBe('registration_closed');
    const joined = await tryRegister({ email, tenant_id: tenant, invite_token: inv.token });
    expect(joined.statusCode).toBe(201);
    expect(joined.json().user).toMatchObject({ tenant_id: tenant, roles: ['admin'] });
    const again = await tryRegister({ email: uniqueEmail(), tenant_id: tenant, invite_token: inv.token });
    expect(again.json().code).toBe('registration_closed');

    const open = (await invite(admin)).json();
    expect(open.role).toBe('user');
    const revoke = await s.h.app.inject({
      method: 'DELETE',
      url: `/api/v1/auth/tenant/invites/${open.id}`,
      headers: admin,
    });
    expect(revoke.statusCode).toBe(204);
    expect((await tryRegister({ email: uniqueEmail(), tenant_id: tenant, invite_token: open.token })).statusCode).toBe(
      403,
    );
    const revokeAgain = await s.h.app.inject({
      method: 'DELETE',
      url: `/api/v1/auth/tenant/invites/${open.id}`,
      headers: admin,
    });
    expect(revokeAgain.statusCode).toBe(404);

    const shortLived = (await invite(admin, { expires_in_s: 60 })).json();
    s.h.clock.advance(61_000);
    expect(
      (await tryRegister({ email: uniqueEmail(), tenant_id: tenant, invite_token: shortLived.token })).statusCode,
    ).toBe(403);
    // An invitation of one tenant does not open another.
    const other = await tenantWithAdmin();
    const foreign = (await invite(admin)).json();
    expect(
      (await tryRegister({ email: uniqueEmail(), tenant_id: other.tenant, invite_token: foreign.token })).statusCode,
    ).toBe(403);
    const foreignRevoke = await s.h.app.inject({
      method: 'DELETE',
      url: `/api/v1/auth/tenant/invites/${foreign.id}`,
      headers: other.admin,
    });
    expect(foreignRevoke.statusCode).toBe(404);
  });

  it('domain and open policies admit as configured; only admins change them', async () => {
    const { tenant, admin } = await tenantWithAdmin();
    const setDomain = await s.h.app.inject({
      method: 'PATCH',
      url: '/api/v1/auth/tenant',
      headers: admin,
      payload: { registration: 'domain', allowed_email_domains: ['Acme.Example'] },
    });
    expect(setDomain.statusCode).toBe(200);
    expect(setDomain.json()).toMatchObject({ registration: 'domain', allowed_email_domains: ['acme.example'] });
    const outsider = await tryRegister({ email: `x-${crypto.randomUUID()}@other.example`, tenant_id: tenant });
    expect(outsider.json().code).toBe('registration_closed');
    const insider = await tryRegister({ email: `x-${crypto.randomUUID()}@acme.example`, tenant_id: tenant });
    expect(insider.statusCode).toBe(201);
    expect(insider.json().user.roles).toEqual(['user']);
    const user = bearer(insider.json().access_token);
    const notAdmin = await s.h.app.inject({
      method: 'PATCH',
      url: '/api/v1/auth/tenant',
      headers: user,
      payload: { registration: 'open' },
    });
    expect(notAdmin.statusCode).toBe(403);
    const bad = await s.h.app.inject({
      method: 'PATCH',
      url: '/api/v1/auth/tenant',
      headers: admin,
      payload: { registration: 'anyone' },
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].loc).toEqual(['body', 'registration']);
    await s.h.app.inject({
      method: 'PATCH',
      url: '/api/v1/auth/tenant',
      headers: admin,
      payload: { registration: 'open' },
    });
    expect((await tryRegister({ email: uniqueEmail(), tenant_id: tenant })).statusCode).toBe(201);
  });

  it("keeps the deployment's default tenant open", async () => {
    await register(s.h.app);
    const second = await tryRegister({ email: uniqueEmail() });
    expect(second.statusCode).toBe(201);
    expect(second.json().user.tenant_id).toBe(s.h.config.DEFAULT_TENANT_ID);
  });

  it('applies the same policy to SSO sign-ins that would create a user', async () => {
    const { tenant, admin } = await tenantWithAdmin();
    const account = newAccount(s.idp);
    const token = await s.idp.sign({
      iss: s.idp.issuer,
      aud: CLIENT_ID,
      sub: account.sub,
      email: account.email,
      email_verified: true,
      iat: now(),
      exp: now() + 300,
    });
    const viaSso = () =>
      s.h.app.inject({
        method: 'POST',
        url: '/api/v1/auth/sso/callback',
        headers: { 'x-tenant-id': tenant },
        payload: { token },
      });
    const refused = await viaSso();
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('registration_closed');
    await s.h.app.inject({
      method: 'PATCH',
      url: '/api/v1/auth/tenant',
      headers: admin,
      payload: { registration: 'open' },
    });
    const admitted = await viaSso();
    expect(admitted.statusCode).toBe(200);
    expect(admitted.json().user).toMatchObject({ tenant_id: tenant, roles: ['user'] });
  });
});
