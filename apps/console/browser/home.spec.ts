import { randomUUID } from 'node:crypto';
import { expect, expectAccessible, type Person, registerPerson, signIn, test } from './fixtures.js';

/** One tenant for the file: its first user is the tenant admin, the second joins by invitation as a plain user. */
let admin: Person;
let member: Person;

test.beforeAll(async ({ baseUrl }) => {
  const tenantId = randomUUID();
  admin = await registerPerson(baseUrl, 'Grace Hopper', { tenant_id: tenantId });
  const invite = await admin.api.POST('/api/v1/auth/tenant/invites', { body: { role: 'user' } });
  if (!invite.data) throw new Error(`invite failed: ${JSON.stringify(invite.error)}`);
  member = await registerPerson(baseUrl, 'Ada Lovelace', { tenant_id: tenantId, invite_token: invite.data.token });
});

test('home shows the day’s figures and the tiles; a degraded figure is unavailable, not 0', async ({ page }) => {
  await admin.api.POST('/api/v1/service/tasks', {
    body: { title: 'Overdue thing', deadline_at: new Date(Date.now() - 3_600_000).toISOString() },
  });
  await signIn(page, admin, '/home');
  const nav = page.getByRole('navigation', { name: 'Main' });
  for (const name of ['Home', 'Calendar', 'Tasks', 'Routines', 'Settings', 'Admin']) {
    await expect(nav.getByRole('link', { name, exact: true })).toBeVisible();
  }
  await expect(page.getByRole('link', { name: 'Overdue 1' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Due today 0' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Unread notifications 0' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Administration' })).toBeVisible();
  await expectAccessible(page, 'home');

  // The delivery service not answering: the summary names its figures in `degraded` with null values.
  await page.route('**/api/v1/service/dashboard/summary', async (route) => {
    const response = await route.fetch();
    const body = await response.json();
    body.notifications_unread = null;
    body.reminders_next_24h = null;
    body.degraded = ['notifications_unread', 'reminders_next_24h'];
    await route.fulfill({ response, json: body });
  });
  await page.reload();
  await expect(page.getByRole('link', { name: 'Unread notifications Unavailable' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Reminders in the next 24 h Unavailable' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Overdue 1' })).toBeVisible();
  await expectAccessible(page, 'home with degraded figures');

  await page.getByRole('link', { name: 'Administration' }).click();
  await expect(page.getByRole('heading', { name: 'Admin', level: 1 })).toBeVisible();
});

test('a plain user sees no Admin link and gets "not allowed" on /admin', async ({ page }) => {
  await signIn(page, member, '/home');
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Settings', exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: /^Overdue \d/ })).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Admin', exact: true })).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Administration' })).toHaveCount(0);
  await page.goto('/admin');
  await expect(page.getByRole('heading', { name: 'Not allowed', level: 1 })).toBeVisible();
  await expectAccessible(page, 'admin not allowed');
});

test('a tenant admin changes a quota (a refusal shown on its field) and invites someone who registers with the link', async ({
  page,
  browser,
  baseUrl,
}) => {
  await signIn(page, admin, '/admin/quotas');
  for (const name of ['Registration and invites', 'Quotas', 'Tenant model', 'Health']) {
    await expect(page.getByRole('heading', { name, level: 2 })).toBeVisible();
  }
  await expect(page.getByRole('row', { name: /Database ok/ })).toBeVisible();
  await expectAccessible(page, 'admin');

  await page.getByRole('button', { name: `Edit quota of ${admin.email}` }).click();
  const soft = page.getByRole('textbox', { name: `Soft cap (USD a day) of ${admin.email}` });
  const hard = page.getByRole('textbox', { name: `Hard cap (USD a day) of ${admin.email}` });
  await hard.fill('2');
  await soft.fill('3');
  await page.getByRole('button', { name: `Save quota of ${admin.email}` }).click();
  await expect(soft).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByRole('alert')).toBeVisible();
  await expectAccessible(page, 'a quota refused on its field');
  await soft.fill('1.5');
  await page.getByRole('button', { name: `Save quota of ${admin.email}` }).click();
  const row = page.getByRole('row', { name: new RegExp(admin.email) });
  await expect(row.getByRole('cell').nth(0)).toHaveText('1.5');
  await expect(row.getByRole('cell').nth(1)).toHaveText('2');

  // An invitation: its link, shown once, registers the invitee into this tenant.
  await page.getByRole('button', { name: 'Create invitation' }).click();
  const shown = page.getByText(/Invitation link, shown only now/);
  const link = (await shown.locator('code').textContent()) ?? '';
  expect(link).toMatch(/\/register#tenant=.+&invite=.+/);
  const invitee = await browser.newContext({ baseURL: baseUrl, timezoneId: 'Asia/Tokyo' });
  const other = await invitee.newPage();
  await other.goto(link);
  await expect(other.getByText('You were invited')).toBeVisible();
  const email = `invitee-${Date.now()}@example.test`;
  await other.getByRole('textbox', { name: 'Name' }).fill('Katherine Johnson');
  await other.getByRole('textbox', { name: 'Email' }).fill(email);
  await other.getByRole('textbox', { name: 'Password' }).fill('a long enough password');
  await other.getByRole('button', { name: 'Create account' }).click();
  await expect(other.getByRole('navigation', { name: 'Main' })).toBeVisible();
  await expect(other.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' })).toHaveCount(0);
  await invitee.close();
  await page.reload();
  await expect(page.getByRole('row', { name: new RegExp(email) })).toBeVisible();
});
