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
