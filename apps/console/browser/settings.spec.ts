import { WebhookReceiver } from '@routinely/testkit/webhook-receiver';
import { at, block, expect, expectAccessible, nextMonday, signIn, test, weekPath } from './fixtures.js';

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

test('settings: connect the Google Calendar fake, see its event in the calendar, disconnect', async ({
  page,
  person,
}) => {
  const monday = nextMonday();
  const fake = process.env.CONSOLE_FAKE_GOOGLE_URL;
  if (!fake) throw new Error('CONSOLE_FAKE_GOOGLE_URL is not set (the global setup starts the fake)');
  const added = await fetch(`${fake}/_fake/events`, {
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

  // The callback's error codes in words.
  await page.goto('/settings/calendars?provider=google&status=error&error=access_denied');
  await expect(page.getByRole('alert')).toContainText('did not allow Routinely to read the calendar');
  await page.getByRole('button', { name: 'Disconnect Google Calendar' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Yes, disconnect' }).click();
  await expect(page.getByText('No calendar connected')).toBeVisible();
});

test('settings: a webhook endpoint made with its secret shown once, a signed test send, its attempt', async ({
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

  await endpoint.getByRole('button', { name: 'Disable' }).click();
  await expect(endpoint.getByText('disabled', { exact: true })).toBeVisible();
  await receiver.close();
});
