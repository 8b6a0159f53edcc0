import { WebhookReceiver } from '@routinely/testkit/webhook-receiver';
import {
  at,
  block,
  expect,
  expectAccessible,
  fakeUrl,
  nextMonday,
  scheduledTask,
  signIn,
  test,
  USER_TZ,
  weekPath,
} from './fixtures.js';

test('settings: edited working hours (two ranges on Monday) are what the next plan uses', async ({ page, person }) => {
  await signIn(page, person, '/settings/working-hours');
  for (const name of [
    'Working hours',
    'No-go windows',
    'Calendars',
    'Calendar feed',
    'Webhooks',
    'Security',
    'Model and spend',
  ]) {
    await expect(page.getByRole('heading', { name, level: 2 })).toBeVisible();
  }
  await expectAccessible(page, 'settings');
  await page.getByRole('textbox', { name: 'Monday from' }).fill('14:00');
  await page.getByRole('textbox', { name: 'Monday to' }).fill('15:00');
  await page.getByRole('button', { name: 'Add a range on Monday' }).click();
  await page.getByRole('textbox', { name: 'Monday 2 from' }).fill('16:00');
  await page.getByRole('textbox', { name: 'Monday 2 to' }).fill('17:00');
  await page.getByRole('button', { name: 'Save working hours' }).click();
  await expect(page.getByText('Working hours saved')).toBeVisible();

  // A range that ends before it starts: the server's 422 in words.
  await page.getByRole('textbox', { name: 'Monday 2 to' }).fill('15:30');
  await page.getByRole('button', { name: 'Save working hours' }).click();
  await expect(page.getByRole('alert')).toBeVisible();
  await expectAccessible(page, 'working hours refused');
  await page.reload();
  await expect(page.getByRole('textbox', { name: 'Monday 2 to' })).toHaveValue('17:00');

  await person.api.POST('/api/v1/service/tasks', { body: { title: 'Write the grant', duration_min: 60, priority: 1 } });
  await page.goto(weekPath(nextMonday()));
  await page.getByRole('button', { name: 'Plan my week' }).click();
  await expect(page.getByRole('button', { name: /^Proposed: Write the grant, Monday 14:00 to 15:00/ })).toBeVisible();
});

test('settings: connect the Google Calendar fake, see its event, sync now, reconnect, disconnect', async ({
  page,
  person,
}) => {
  const monday = nextMonday();
  const added = await fetch(`${fakeUrl('CONSOLE_FAKE_GOOGLE_URL')}/_fake/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      summary: 'Fake Google standup',
      start: { dateTime: at(monday, '11:00') },
      end: { dateTime: at(monday, '11:30') },
    }),
  });
  expect(added.ok).toBe(true);

  await signIn(page, person, '/settings/calendars');
  await expect(page.getByText('No calendar connected')).toBeVisible();
  await page.getByRole('button', { name: 'Connect Google Calendar' }).click();
  await expect(page).toHaveURL(/\/settings\/calendars\?.*status=active/);
  await expect(page.getByText('Google Calendar connected')).toBeVisible();
  await expect(page.getByText('person@gmail.test')).toBeVisible();
  await expectAccessible(page, 'a connected calendar');

  await page.goto(weekPath(monday));
  await expect(block(page, 'Fake Google standup')).toHaveAccessibleName(/, Monday 11:00 to 11:30/);

  // Sync now says what it fetched; Reconnect goes through the provider's consent again and keeps the one row.
  await page.goto('/settings/calendars');
  await page.getByRole('button', { name: 'Sync now (Google Calendar)' }).click();
  await expect(page.getByRole('status').filter({ hasText: /^Synced: \d+ fetched, \d+ new/ })).toBeVisible();
  await expect(page.getByText(/^Last sync: (?!never)/)).toBeVisible();
  await expectAccessible(page, 'a calendar synced now');
  await page.getByRole('button', { name: 'Reconnect Google Calendar' }).click();
  await expect(page).toHaveURL(/\/settings\/calendars\?.*status=active/);
  await expect(page.getByText('Google Calendar connected')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Sync now (Google Calendar)' })).toHaveCount(1);

  // The callback's error codes in words.
  await page.goto('/settings/calendars?provider=google&status=error&error=access_denied');
  await expect(page.getByRole('alert')).toContainText('did not allow Routinely to read the calendar');
  await page.getByRole('button', { name: 'Disconnect Google Calendar' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Yes, disconnect' }).click();
  await expect(page.getByText('No calendar connected')).toBeVisible();
});

test('settings: a webhook endpoint (secret shown once), a signed test send and its attempt, a dead letter requeued', async ({
  page,
  person,
}) => {
  let secret = '';
  const receiver = await WebhookReceiver.start({ secrets: () => [secret] });
  await signIn(page, person, '/settings/webhooks');
  await expect(page.getByText('No webhook endpoints')).toBeVisible();
  await page.getByRole('textbox', { name: 'Endpoint name' }).fill('My receiver');
  await page.getByRole('textbox', { name: 'Endpoint URL' }).fill(`${receiver.url}/hooks`);
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  const shown = page.getByText(/Signing secret of My receiver, shown only now/);
  await expect(shown).toBeVisible();
  secret = (await shown.locator('code').textContent()) ?? '';
  expect(secret.length).toBeGreaterThan(16);
  await expectAccessible(page, 'a new webhook endpoint');

  const endpoint = page.getByRole('listitem', { name: 'Endpoint My receiver' });
  await endpoint.getByRole('button', { name: 'Send test' }).click();
  await expect(endpoint.getByText(/^Test delivered: HTTP 200 in \d+ ms/)).toBeVisible();
  const attempt = endpoint.getByRole('table', { name: 'Attempts to My receiver' }).getByRole('row').nth(1);
  await expect(attempt).toContainText('webhook.test');
  await expect(attempt).toContainText('200');
  // The receiver checked the signature with the secret the page showed.
  expect(receiver.received.at(-1)?.verified).toBe(true);
  await expectAccessible(page, 'a webhook test and its attempt');

  // A reminder the receiver refuses for good (410) becomes a dead letter; requeued, it is delivered.
  receiver.setResponder(() => ({ status: 410 }));
  const soon = Date.now() + 2_000;
  const reminded = await person.api.POST('/api/v1/service/tasks', {
    body: { title: 'Call the bank', reminder_channels: ['webhook'], reminder_offset_min: 0 },
  });
  if (!reminded.data) throw new Error(`create failed: ${JSON.stringify(reminded.error)}`);
  await person.api.PATCH('/api/v1/service/tasks/{task_id}', {
    params: { path: { task_id: reminded.data.id } },
    body: {
      chosen_slot_start: new Date(soon).toISOString(),
      chosen_slot_end: new Date(soon + 1_800_000).toISOString(),
    },
  });
  await expect
    .poll(async () => (await person.api.GET('/api/v1/service/reminders/dlq', {})).data?.total, { timeout: 30_000 })
    .toBe(1);
  receiver.setResponder(() => ({ status: 200 }));
  await page.reload();
  const letters = page.getByRole('region', { name: 'Dead letters' });
  const requeue = letters.getByRole('button', { name: /^Requeue the webhook to My receiver/ });
  await expect(letters).toContainText('410');
  await expectAccessible(page, 'a dead letter');
  const before = receiver.received.length;
  await requeue.click();
  await expect(letters.getByText('Sent again as a new delivery.')).toBeVisible();
  await expect(letters.getByText(/^No dead letters/)).toBeVisible();
  await receiver.waitFor(before + 1);
  expect(receiver.received.at(-1)?.verified).toBe(true);
  expect(receiver.received.at(-1)?.json).toMatchObject({ event: 'reminder.fired' });

  await endpoint.getByRole('button', { name: 'Disable' }).click();
  await expect(endpoint.getByText('disabled', { exact: true })).toBeVisible();
  await receiver.close();
});

test('settings: connect the Microsoft fake, see its event in the calendar, disconnect', async ({ page, person }) => {
  const monday = nextMonday();
  // Graph's events carry a wall time and the zone it is in.
  const added = await fetch(`${fakeUrl('CONSOLE_FAKE_MICROSOFT_URL')}/_fake/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      subject: 'Fake Outlook review',
      start: { dateTime: `${monday.toString()}T14:00:00`, timeZone: USER_TZ },
      end: { dateTime: `${monday.toString()}T14:30:00`, timeZone: USER_TZ },
    }),
  });
  expect(added.ok).toBe(true);

  await signIn(page, person, '/settings/calendars');
  await page.getByRole('button', { name: 'Connect Microsoft Outlook' }).click();
  await expect(page).toHaveURL(/\/settings\/calendars\?.*status=active/);
  await expect(page.getByText('Microsoft Outlook connected')).toBeVisible();
  await expect(page.getByText('person@contoso.test')).toBeVisible();
  await expectAccessible(page, 'a connected Microsoft calendar');

  await page.goto(weekPath(monday));
  await expect(block(page, 'Fake Outlook review')).toHaveAccessibleName(/, Monday 14:00 to 14:30/);
  // The confirmation keeps the keyboard on its two buttons; Escape keeps the connection and returns focus.
  await page.goto('/settings/calendars');
  const disconnect = page.getByRole('button', { name: 'Disconnect Microsoft Outlook' });
  await disconnect.click();
  const confirm = page.getByRole('alertdialog', { name: /^Disconnect Microsoft Outlook\?/ });
  await expect(confirm.getByRole('button', { name: 'Yes, disconnect' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(confirm.getByRole('button', { name: 'Keep it' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(confirm.getByRole('button', { name: 'Yes, disconnect' })).toBeFocused();
  await expectAccessible(page, 'a disconnection to confirm');
  await page.keyboard.press('Escape');
  await expect(confirm).toHaveCount(0);
  await expect(disconnect).toBeFocused();
  await page.keyboard.press('Enter');
  await confirm.getByRole('button', { name: 'Yes, disconnect' }).click();
  await expect(page.getByText('No calendar connected')).toBeVisible();
});

test('settings: the calendar feed URL made, copied, read by a calendar app, then revoked', async ({
  page,
  person,
  context,
  baseUrl,
}) => {
  const monday = nextMonday();
  await scheduledTask(person, 'Water the plants', at(monday, '09:00'), at(monday, '09:30'));
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await signIn(page, person, '/settings/feed');
  const feed = page.getByRole('region', { name: 'Calendar feed' });
  await feed.getByRole('button', { name: 'Create feed URL' }).click();
  const shown =
    (await feed
      .getByText(/^Feed URL:/)
      .locator('code')
      .textContent()) ?? '';
  const url = new URL(shown, baseUrl).toString();
  await feed.getByRole('button', { name: 'Copy feed URL' }).click();
  await expect(feed.getByRole('status').filter({ hasText: 'Copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shown);
  await expectAccessible(page, 'a new calendar feed URL');

  // A calendar app reads it without the session: the URL is the key.
  const read = await fetch(url);
  expect(read.status).toBe(200);
  expect(read.headers.get('content-type')).toMatch(/^text\/calendar/);
  expect(await read.text()).toContain('SUMMARY:Water the plants');

  await feed.getByRole('button', { name: 'Revoke feed' }).click();
  await expect(feed.getByText('Feed revoked: the old URL no longer works.')).toBeVisible();
  await expect(feed.getByText(shown)).toHaveCount(0);
  await expectAccessible(page, 'a revoked calendar feed');
  expect((await fetch(url)).status).toBe(404);
});
