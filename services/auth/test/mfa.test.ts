import { defined, sqlRows } from '@routinely/testkit';
import { authenticator } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthHarness, bearer, makeSsoOnly, postLogin, register, STRONG_PASSWORD, startAuth } from './harness.js';

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuth();
});
afterAll(() => h?.close());

const totp = (secret: string) => authenticator.clone({ epoch: h.clock.now().getTime() }).generate(secret);
const nextStep = () => h.clock.advance(30_000);

async function post(url: string, payload: unknown, token?: string) {
  return h.app.inject({
    method: 'POST',
    url: `/api/v1${url}`,
    payload: payload as object,
    headers: token ? bearer(token) : {},
  });
}

/** A registered user with MFA set up and confirmed. */
async function userWithMfa() {
  const user = await register(h.app);
  const setup = (await post('/auth/mfa/setup', undefined, user.access)).json();
  const confirm = await post('/auth/mfa/verify', { code: totp(setup.secret) }, user.access);
  expect(confirm.json()).toEqual({ mfa_enabled: true });
  nextStep();
  return { ...user, secret: setup.secret as string, backupCodes: setup.backup_codes as string[] };
}

async function startLogin(email: string): Promise<string> {
  const res = await post('/auth/login', { email, password: STRONG_PASSWORD });
  expect(res.statusCode).toBe(200);
  expect(res.json()).toMatchObject({ mfa_required: true, mfa_methods: ['totp', 'backup_code'], expires_in: 300 });
  expect(res.json().access_token).toBeUndefined();
  expect(res.headers['set-cookie']).toBeUndefined();
  return res.json().mfa_token;
}

describe('MFA setup and confirmation', () => {
  it('returns a secret, otpauth URL, PNG QR data URL and 10 backup codes; MFA is off until confirmed', async () => {
    const user = await register(h.app);
    const res = await post('/auth/mfa/setup', undefined, user.access);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.secret).toMatch(/^[A-Z2-7]+$/);
    expect(body.otpauth_url).toMatch(/^otpauth:\/\/totp\/Routinely:/);
    expect(body.qr_code_url).toMatch(/^data:image\/png;base64,/);
    expect(body.backup_codes).toHaveLength(10);
    expect(new Set(body.backup_codes).size).toBe(10);
    // Not on yet: login gives tokens straight away.
    const login = await post('/auth/login', { email: user.email, password: STRONG_PASSWORD });
    expect(login.json().access_token).toBeDefined();
    const me = await h.app.inject({ url: '/api/v1/auth/me', headers: bearer(user.access) });
    expect(me.json().mfa_enabled).toBe(false);

    const wrong = await post('/auth/mfa/verify', { code: '000000' }, user.access);
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().code).toBe('invalid_mfa_code');
    const ok = await post('/auth/mfa/verify', { code: totp(body.secret) }, user.access);
    expect(ok.statusCode).toBe(200);
    const after = await h.app.inject({ url: '/api/v1/auth/me', headers: bearer(user.access) });
    expect(after.json().mfa_enabled).toBe(true);
    const again = await post('/auth/mfa/setup', undefined, user.access);
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('mfa_already_enabled');
  });

  it('stores the TOTP seed encrypted and the backup codes hashed', async () => {
    const { userId, secret, backupCodes } = await userWithMfa();
    const [row] = await sqlRows<{ mfa_secret: string }>(h.orm, 'select mfa_secret from users where id = ?', [userId]);
    expect(row?.mfa_secret).toMatch(/^v1\./);
    expect(row?.mfa_secret).not.toContain(secret);
    const codes = await sqlRows<{ code_hash: string }>(
      h.orm,
      'select code_hash from mfa_backup_codes where user_id = ?',
      [userId],
    );
    expect(codes).toHaveLength(10);
    for (const { code_hash } of codes) {
      expect(code_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(backupCodes.some((c) => code_hash.includes(c.replace('-', '')))).toBe(false);
    }
  });

  it('verify without mfa_token or bearer is 401; a bad body is 422', async () => {
    expect((await post('/auth/mfa/verify', { code: '123456' })).statusCode).toBe(401);
    const invalid = await post('/auth/mfa/verify', { code: 12 });
    expect(invalid.statusCode).toBe(422);
    expect(invalid.json().errors[0].loc).toEqual(['body', 'code']);
  });
});

describe('login with MFA', () => {
  it('completes with a TOTP code, and the same code is refused the second time', async () => {
    const user = await userWithMfa();
    const code = totp(user.secret);
    const first = await post('/auth/mfa/verify', { code, mfa_token: await startLogin(user.email) });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ token_type: 'bearer', user: { email: user.email, mfa_enabled: true } });
    expect(String(first.headers['set-cookie'])).toContain('routinely_session=');
    expect(String(first.headers['set-cookie'])).toContain(`routinely_refresh=${first.json().refresh_token};`);
    const replay = await post('/auth/mfa/verify', { code, mfa_token: await startLogin(user.email) });
    expect(replay.statusCode).toBe(401);
    expect(replay.json().code).toBe('invalid_mfa_code');
    nextStep();
    const later = await post('/auth/mfa/verify', { code: totp(user.secret), mfa_token: await startLogin(user.email) });
    expect(later.statusCode).toBe(200);
  });

  it('accepts a backup code once', async () => {
    const user = await userWithMfa();
    const code = defined(user.backupCodes[3]);
    const first = await post('/auth/mfa/verify', { code: code.toUpperCase(), mfa_token: await startLogin(user.email) });
    expect(first.statusCode).toBe(200);
    const second = await post('/auth/mfa/verify', { code, mfa_token: await startLogin(user.email) });
    expect(second.statusCode).toBe(401);
    const other = await post('/auth/mfa/verify', {
      code: defined(user.backupCodes[4]),
      mfa_token: await startLogin(user.email),
    });
    expect(other.statusCode).toBe(200);
  });

  it('an mfa_token is single-use, expires, and allows only a few wrong guesses', async () => {
    const user = await userWithMfa();
    const token = await startLogin(user.email);
    expect((await post('/auth/mfa/verify', { code: totp(user.secret), mfa_token: token })).statusCode).toBe(200);
    nextStep();
    const reused = await post('/auth/mfa/verify', { code: totp(user.secret), mfa_token: token });
    expect(reused.statusCode).toBe(401);
    expect(reused.json().code).toBe('invalid_token');

    const expiring = await startLogin(user.email);
    h.clock.advance(301_000);
    expect((await post('/auth/mfa/verify', { code: totp(user.secret), mfa_token: expiring })).statusCode).toBe(401);

    const guessed = await startLogin(user.email);
    for (let i = 0; i < 5; i++) await post('/auth/mfa/verify', { code: '000000', mfa_token: guessed });
    nextStep();
    const afterBudget = await post('/auth/mfa/verify', { code: totp(user.secret), mfa_token: guessed });
    expect(afterBudget.statusCode).toBe(401);
    expect(afterBudget.json().code).toBe('invalid_token');
  });

  it('the mfa_token is no access token', async () => {
    const user = await userWithMfa();
    const token = await startLogin(user.email);
    expect((await h.app.inject({ url: '/api/v1/auth/me', headers: bearer(token) })).statusCode).toBe(401);
  });
});

describe('DELETE /auth/mfa', () => {
  const disable = (token: string, payload: unknown) =>
    h.app.inject({ method: 'DELETE', url: '/api/v1/auth/mfa', headers: bearer(token), payload: payload as object });

  it('needs the password: wrong is 401, missing is 422, right disables', async () => {
    const user = await userWithMfa();
    expect((await disable(user.access, { password: 'definitely wrong' })).statusCode).toBe(401);
    const missing = await disable(user.access, {});
    expect(missing.statusCode).toBe(422);
    expect(missing.json().errors[0].loc).toEqual(['body', 'password']);
    const ok = await disable(user.access, { password: STRONG_PASSWORD });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ ok: true, mfa_enabled: false });
    const login = await post('/auth/login', { email: user.email, password: STRONG_PASSWORD });
    expect(login.json().access_token).toBeDefined();
    expect((await disable(user.access, { password: STRONG_PASSWORD })).statusCode).toBe(409);
  });

  it('takes a code from an account without a local password', async () => {
    const user = await userWithMfa();
    await makeSsoOnly(h.orm, user.userId);
    expect((await disable(user.access, { code: '000000' })).statusCode).toBe(401);
    const ok = await disable(user.access, { code: totp(user.secret) });
    expect(ok.statusCode).toBe(200);
  });
});

describe('MFA code guessing', () => {
  it('counts wrong codes as failed logins: the (account, IP) pair gets blocked across challenges', async () => {
    const user = await userWithMfa();
    const ip = '10.77.0.1';
    const challenge = async () =>
      (await postLogin(h.app, { email: user.email, password: STRONG_PASSWORD }, ip)).json().mfa_token as string;
    const guess = async (token: string) =>
      h.app.inject({
        method: 'POST',
        url: '/api/v1/auth/mfa/verify',
        payload: { code: '000000', mfa_token: token },
        remoteAddress: ip,
      });
    for (let i = 0; i < 3; i++) expect((await guess(await challenge())).statusCode).toBe(401);
    const token = await challenge();
    for (let i = 0; i < 2; i++) expect((await guess(token)).statusCode).toBe(401);
    // Five wrong codes: the pair is blocked for codes on a live challenge and for new logins alike.
    expect((await guess(token)).statusCode).toBe(429);
    const login = await postLogin(h.app, { email: user.email, password: STRONG_PASSWORD }, ip);
    expect(login.statusCode).toBe(429);
  });
});
