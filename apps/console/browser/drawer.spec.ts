import { at, block, expect, expectAccessible, nextMonday, scheduledTask, signIn, test, weekPath } from './fixtures.js';

test('the palette adds a task; the drawer edits it, its steps (reordered by keyboard), a dependency, and deletes it', async ({
  page,
  person,
}) => {
  const first = await person.api.POST('/api/v1/service/tasks', { body: { title: 'Buy the paint', duration_min: 30 } });
  if (!first.data) throw new Error(`create failed: ${JSON.stringify(first.error)}`);
  await signIn(page, person, '/tasks');
  await expect(page.getByRole('treeitem', { name: /^Buy the paint/ })).toBeVisible();

  // Ctrl/Cmd+K: the palette takes quick-add text too.
  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  await palette.getByRole('textbox', { name: 'Quick add' }).fill('Paint the fence 2h p2');
  await page.keyboard.press('Enter');
  await expect(palette.getByRole('row', { name: '2 h' })).toBeVisible();
  await expectAccessible(page, 'the palette');
  await page.keyboard.press('Enter');
  await expect(palette).toBeHidden();

  // Enter on a task of the tree opens it.
  await page.getByRole('treeitem', { name: /^Paint the fence/ }).focus();
  await page.keyboard.press('Enter');
  const drawer = page.getByRole('dialog', { name: 'Task Paint the fence' });
  await drawer.getByRole('textbox', { name: 'Description' }).fill('Two coats, the north side first.');
  await drawer.getByRole('textbox', { name: 'Duration (minutes)' }).fill('150');
  await drawer.getByRole('button', { name: 'Save changes' }).click();
  await expect(drawer.getByRole('textbox', { name: 'Duration (minutes)' })).toHaveValue('150');

  for (const step of ['Sand the boards', 'First coat', 'Second coat']) {
    await drawer.getByRole('textbox', { name: 'New step' }).fill(step);
    await drawer.getByRole('button', { name: 'Add step' }).click();
    await expect(drawer.getByRole('row', { name: step })).toBeVisible();
  }
  const steps = drawer.getByRole('grid', { name: 'Steps' }).getByRole('row');
  await expect(steps).toHaveText([/Sand the boards/, /First coat/, /Second coat/]);
  // Keyboard reorder: the drag handle of "Second coat", Enter, up to before "First coat", Enter.
  await drawer.getByRole('button', { name: 'Reorder Second coat' }).focus();
  await page.keyboard.press('Enter');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Enter');
  await expect(steps).toHaveText([/Sand the boards/, /Second coat/, /First coat/]);
  await drawer.getByRole('checkbox', { name: 'Sand the boards done' }).focus();
  await page.keyboard.press('Space');
  await expect(drawer.getByRole('checkbox', { name: 'Sand the boards done' })).toBeChecked();

  await drawer.getByRole('button', { name: /Add a task it waits for/ }).click();
  await page.getByRole('option', { name: 'Buy the paint' }).click();
  await expect(drawer.getByRole('button', { name: 'Remove waiting for Buy the paint' })).toBeVisible();
  await expectAccessible(page, 'the drawer with steps and a dependency');

  await drawer.getByRole('button', { name: 'Delete' }).click();
  await expect(drawer.getByRole('alertdialog')).toContainText('and its 3 steps');
  await drawer.getByRole('button', { name: 'Delete task' }).click();
  await expect(drawer).toBeHidden();
  await expect(page.getByRole('treeitem', { name: /^Paint the fence/ })).toHaveCount(0);
});

test('skip and unschedule from the drawer; dark mode by the toggle', async ({ page, person }) => {
  const monday = nextMonday();
  await scheduledTask(person, 'Walk the dog', at(monday, '08:00'), at(monday, '08:30'));
  await scheduledTask(person, 'Post the letter', at(monday, '11:00'), at(monday, '11:30'));
  await signIn(page, person, weekPath(monday));
  await block(page, 'Walk the dog').click();
  await page.getByRole('dialog').getByRole('button', { name: 'Skip' }).click();
  await expect(page.getByRole('dialog').getByText('skipped', { exact: true })).toBeVisible();
  await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
  await block(page, 'Post the letter').click();
  await page.getByRole('dialog').getByRole('button', { name: 'Unschedule' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
  await expect(block(page, 'Post the letter')).toHaveCount(0);
  await expect(
    page.getByRole('complementary', { name: /Unscheduled/ }).getByRole('button', { name: /Post the letter/ }),
  ).toBeVisible();

  await page.getByRole('button', { name: 'Dark mode' }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expectAccessible(page, 'the week, dark by the toggle');
  await page.reload();
  await expect(page.getByRole('button', { name: 'Dark mode' })).toHaveAttribute('aria-pressed', 'true');
});

test('the bell shows a new notification without a reload, and marks it read', async ({ page, person }) => {
  await signIn(page, person, '/tasks');
  await expect(page.getByRole('button', { name: 'Notifications', exact: true })).toBeVisible();
  // A task starting in five minutes with the default ten-minute in-app reminder: it fires at once.
  const start = new Date(Date.now() + 5 * 60_000);
  await scheduledTask(
    person,
    'Take the cake out',
    start.toISOString(),
    new Date(start.getTime() + 15 * 60_000).toISOString(),
  );
  const bell = page.getByRole('button', { name: 'Notifications, 1 unread' });
  await expect(bell).toBeVisible({ timeout: 30_000 });
  await bell.click();
  const list = page.getByRole('dialog', { name: 'Notifications' });
  await expect(list).toContainText('Take the cake out');
  await expectAccessible(page, 'the bell');
  await list.getByRole('button', { name: /^Mark read\b.*Take the cake out/ }).click();
  await expect(page.getByRole('button', { name: 'Notifications', exact: true })).toBeVisible();
});

test('sign out everywhere ends the other sessions too', async ({ page, person, browser, baseUrl }) => {
  const other = await browser.newContext({ baseURL: baseUrl, timezoneId: 'Asia/Tokyo' });
  const elsewhere = await other.newPage();
  await signIn(elsewhere, person, '/tasks');
  await signIn(page, person, '/tasks');
  await page.getByRole('button', { name: 'Account' }).click();
  await page.getByRole('button', { name: 'Sign out everywhere' }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await elsewhere.goto('/calendar');
  await expect(elsewhere).toHaveURL(/\/sign-in\?expired=1&return=/);
  await other.close();
});
