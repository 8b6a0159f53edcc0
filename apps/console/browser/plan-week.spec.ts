import { block, drag, expect, expectAccessible, nextMonday, pointOf, test, USER_TZ, weekPath } from './fixtures.js';

const WEEKDAY = /, (Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday) (\d\d):(\d\d) to (\d\d):(\d\d)/;

/** The weekday and the times of a block, read from its accessible name. */
async function slotOf(page: import('@playwright/test').Page, title: string) {
  const name = (await block(page, title).getAttribute('aria-label')) ?? '';
  const m = WEEKDAY.exec(name);
  if (!m) throw new Error(`no slot in "${name}"`);
  return { day: m[1] ?? '', start: Number(m[2]) * 60 + Number(m[3]), end: Number(m[4]) * 60 + Number(m[5]), name };
}

const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const NEXT_DAY: Record<string, string> = {
  Monday: 'Tuesday',
  Tuesday: 'Wednesday',
  Wednesday: 'Thursday',
  Thursday: 'Friday',
  Friday: 'Saturday',
};

test('register, quick-add three tasks, plan the week, apply, drag to the next day, undo, resize, mark done', async ({
  page,
  baseUrl,
}) => {
  test.slow(); // the longest flow: three times the usual minute
  // Register through the screen: the account starts in the browser's timezone, then moves to the user's.
  await page.goto('/register');
  await expectAccessible(page, 'registration');
  await page.getByRole('textbox', { name: 'Name' }).fill('Grace Hopper');
  await page.getByRole('textbox', { name: 'Email' }).fill(`grace-${Date.now()}@example.test`);
  await page.getByRole('textbox', { name: 'Password' }).fill('a long enough password');
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/calendar\/week\//);
  const moved = await page.request.patch('/api/v1/service/settings/me', {
    data: { timezone: USER_TZ },
    headers: { origin: baseUrl },
  });
  expect(moved.status()).toBe(200);

  const monday = nextMonday();
  await page.goto(weekPath(monday));
  await expect(page.getByText(USER_TZ)).toBeVisible();
  await expectAccessible(page, 'an empty week');

  // Quick add: q focuses the box, Enter shows what was understood as chips, Enter again creates; the box
  // keeps the focus for the next one.
  const quick = page.getByRole('textbox', { name: 'Quick add' });
  await page.keyboard.press('q');
  await expect(quick).toBeFocused();
  const panel = page.getByRole('complementary', { name: /Unscheduled/ });
  for (const [count, text, chip] of [
    [1, 'Water the plants 15 min p2', '15 min'],
    [2, 'Write the report 1h p1', '1 h'],
    [3, 'Call the dentist 30 min #errands', '#errands'],
  ] as const) {
    await quick.fill(text);
    await quick.press('Enter');
    await expect(page.getByRole('row', { name: chip })).toBeVisible();
    if (text.startsWith('Call')) await expectAccessible(page, 'quick add chips');
    await quick.press('Enter');
    await expect(panel.getByRole('button')).toHaveCount(count);
  }

  // Plan my week: a dry run shown as ghost blocks with each decision's rationale, then Apply.
  await page.getByRole('button', { name: 'Plan my week' }).click();
  await expect(page.getByRole('button', { name: /^Proposed: Write the report, Monday 09:00 to 10:00/ })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: '3 blocks proposed' })).toBeVisible();
  await page.getByRole('button', { name: /^Proposed: Write the report/ }).hover();
  await expect(page.getByRole('tooltip')).toContainText('Why here');
  await expectAccessible(page, 'the proposal');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(block(page, 'Write the report')).toHaveAccessibleName('Write the report, Monday 09:00 to 10:00');
  await expect(panel.getByRole('button')).toHaveCount(0);

  // Drag one block to the next day at the same time; Undo puts it back.
  const before = await slotOf(page, 'Call the dentist');
  const box = await block(page, 'Call the dentist').boundingBox();
  if (!box) throw new Error('no block');
  const from = { x: box.x + box.width / 2, y: box.y + 8 };
  const target = await pointOf(page, monday.add({ days: DAYS.indexOf(before.day) + 1 }), before.start);
  await drag(page, from, { x: target.x, y: target.y + 8 });
  await expect(block(page, 'Call the dentist')).toHaveAccessibleName(
    new RegExp(`^Call the dentist, ${NEXT_DAY[before.day]} `),
  );
  await page.getByRole('button', { name: 'Undo' }).click();
  await expect(block(page, 'Call the dentist')).toHaveAccessibleName(before.name);

  // Resize: its bottom edge dragged to half an hour after its end.
  const water = await slotOf(page, 'Water the plants');
  const edge = await block(page, 'Water the plants').boundingBox();
  if (!edge) throw new Error('no block');
  const later = await pointOf(page, monday.add({ days: DAYS.indexOf(water.day) }), water.end + 30);
  await drag(
    page,
    { x: edge.x + edge.width / 2, y: edge.y + edge.height - 3 },
    { x: edge.x + edge.width / 2, y: later.y },
  );
  const newEnd = water.end + 30;
  await expect(block(page, 'Water the plants')).toHaveAccessibleName(
    new RegExp(`to ${String(Math.floor(newEnd / 60)).padStart(2, '0')}:${String(newEnd % 60).padStart(2, '0')}$`),
  );

  // Mark done in the task drawer.
  await block(page, 'Write the report').click();
  const drawer = page.getByRole('dialog', { name: 'Task Write the report' });
  await expect(drawer).toBeVisible();
  await expectAccessible(page, 'the task drawer');
  await drawer.getByRole('button', { name: 'Mark done' }).click();
  await expect(drawer.getByText('done', { exact: true })).toBeVisible();
  await drawer.getByRole('button', { name: 'Close' }).click();
  await expect(block(page, 'Write the report')).toHaveAccessibleName(/, done$/);
});
