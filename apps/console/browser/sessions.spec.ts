import { authenticator } from 'otplib';
import { at, block, expect, expectAccessible, nextMonday, scheduledTask, signIn, test, weekPath } from './fixtures.js';
import { SSO_ACCOUNT } from './host.js';

test('sign out, and sign in again on the page that was asked for', async ({ page, person }) => {
  const monday = nextMonday();
  await scheduledTask(
    person,
    'Water the plants',
    at(monday.add({ days: 1 }), '09:00'),
    at(monday.add({ days: 1 }), '09:15'),
  );
  await signIn(page, person, weekPath(monday));
  await expect(block(page, 'Water the plants')).toHaveAccessibleName('Water the plants, Tuesday 09:00 to 09:15');

  await page.getByRole('button', { name: 'Account' }).click();
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  // The cookies are gone: the calendar sends back to sign-in, keeping the page to return to.
  await page.goto(weekPath(monday));
  await expect(page).toHaveURL(/\/sign-in\?return=/);
  await expectAccessible(page, 'sign-in');
  await page.getByRole('textbox', { name: 'Email' }).fill(person.email);
  await page.getByRole('textbox', { name: 'Password' }).fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toBeVisible();
  await expectAccessible(page, 'sign-in refused');
  await page.getByRole('textbox', { name: 'Password' }).fill(person.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(new RegExp(`${weekPath(monday)}$`));
  await expect(block(page, 'Water the plants')).toBeVisible();
});

test('the TOTP step takes a backup code', async ({ page, person }) => {
  const setup = await person.api.POST('/api/v1/auth/mfa/setup', {});
  if (!setup.data) throw new Error('mfa setup failed');
  const confirmed = await person.api.POST('/api/v1/auth/mfa/verify', {
    body: { code: authenticator.generate(setup.data.secret) },
  });
  expect(confirmed.response.status).toBe(200);

  await page.goto('/sign-in');
  await page.getByRole('textbox', { name: 'Email' }).fill(person.email);
  await page.getByRole('textbox', { name: 'Password' }).fill(person.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const code = page.getByRole('textbox', { name: 'Authentication code' });
  await expect(code).toBeFocused();
  await expectAccessible(page, 'the TOTP step');
  await code.fill(setup.data.backup_codes[0] ?? '');
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(/\/calendar\/week\//);
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
});

test('single sign-on with the identity provider fake lands on /home and in the calendar', async ({ page }) => {
  await page.goto('/sign-in');
  await page.getByRole('button', { name: 'Continue with single sign-on' }).click();
  // The provider's own sign-in page (the testkit's fake, a real OpenID provider).
  await page.getByLabel('email').fill(SSO_ACCOUNT.email);
  await page.getByLabel('password').fill(SSO_ACCOUNT.password);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page).toHaveURL(/\/calendar\/week\//);
  await page.getByRole('button', { name: 'Account' }).click();
  await expect(page.getByRole('dialog', { name: 'Account' })).toContainText(/Sso|sso-person/);

  // A failed return says why in words.
  await page.goto('/home?error=invalid_state');
  await expect(page.getByRole('alert')).toContainText('expired or was started in another browser window');
  await expectAccessible(page, 'SSO error');
});

test('two tabs refresh the session once between them and both keep working', async ({ context, person, baseUrl }) => {
  const monday = nextMonday();
  await scheduledTask(person, 'Standup notes', at(monday, '10:00'), at(monday, '10:30'));
  const refreshes: number[] = [];
  context.on('response', (response) => {
    if (response.url().endsWith('/api/v1/auth/refresh')) refreshes.push(response.status());
  });
  const first = await context.newPage();
  const second = await context.newPage();
  for (const tab of [first, second]) await tab.clock.install();
  await signIn(first, person, `${baseUrl}${weekPath(monday)}`);
  await second.goto(`${baseUrl}${weekPath(monday)}`);
  for (const tab of [first, second]) await expect(block(tab, 'Standup notes')).toBeVisible();

  // Both tabs reach the refresh time of the access token (a minute before its 15 minutes) at once.
  await Promise.all([first.clock.runFor('14:05'), second.clock.runFor('14:05')]);
  await expect.poll(() => refreshes.length).toBeGreaterThan(0);
  await first.waitForTimeout(500);
  expect(refreshes).toEqual([200]);

  // Both keep working on the rotated cookies, and the family is intact: a later refresh still succeeds.
  for (const tab of [first, second]) {
    await tab.getByRole('link', { name: 'Next week' }).click();
    await expect(tab.getByRole('grid')).toBeVisible();
    await tab.getByRole('link', { name: 'Previous week' }).click();
    await expect(block(tab, 'Standup notes')).toBeVisible();
  }
  await second.clock.runFor('14:05');
  await expect.poll(() => refreshes).toEqual([200, 200]);
});
