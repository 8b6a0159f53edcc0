import { block, expect, expectAccessible, nextMonday, signIn, test, weekPath } from './fixtures.js';

test('a daily routine with two steps: made by the form, placed in the calendar, done today, streak up', async ({
  page,
  person,
}) => {
  await signIn(page, person, '/routines');
  await expect(page.getByText('No routines yet.')).toBeVisible();
  await expectAccessible(page, 'routines, empty');

  await page.getByRole('link', { name: 'New routine' }).click();
  await page.getByRole('textbox', { name: 'Title' }).fill('Morning stretch');
  const repeats = page.getByRole('combobox', { name: 'Repeats' });
  // The builder writes the rule: weekly on chosen days, then back to every day.
  await repeats.selectOption({ label: 'Weekly on chosen days' });
  await page.getByText('Thursday', { exact: true }).click();
  await expect(page.getByRole('textbox', { name: 'Rule (RFC 5545 RRULE)' })).toHaveValue('FREQ=WEEKLY;BYDAY=MO,TH');
  await repeats.selectOption({ label: 'Every day' });
  await expect(page.getByRole('textbox', { name: 'Rule (RFC 5545 RRULE)' })).toHaveValue('FREQ=DAILY');
  const window = page.getByRole('group', { name: 'Window' });
  await window.getByRole('textbox', { name: 'From' }).fill('09:00');
  await window.getByRole('textbox', { name: 'To' }).fill('11:00');
  for (const step of ['Stretch', 'Roll out the mat']) {
    await page.getByRole('textbox', { name: 'New step' }).fill(step);
    await page.getByRole('button', { name: 'Add step' }).click();
  }
  await page.getByRole('button', { name: 'Move Roll out the mat up' }).click();
  await expectAccessible(page, 'the new routine form');
  await page.getByRole('button', { name: 'Save routine' }).click();

  await expect(page.getByRole('heading', { name: 'Morning stretch', level: 1 })).toBeVisible();
  await expect(page.getByText('Current streak 0 days')).toBeVisible();
  const steps = page.getByRole('grid', { name: 'Steps' }).getByRole('row');
  await expect(steps).toHaveText([/Roll out the mat/, /Stretch/]);
  await expectAccessible(page, 'a routine');

  // The occurrences are planned in the background, inside the window, and show in the calendar like any task.
  await page.getByRole('link', { name: 'Calendar', exact: true }).click();
  await page.goto(weekPath(nextMonday()));
  await expect(block(page, 'Morning stretch').first()).toHaveAccessibleName(
    /, \w+day (09|10):\d\d to (09|10|11):\d\d$/,
    {
      timeout: 30_000,
    },
  );

  await page.goBack();
  await page.getByRole('link', { name: 'Routines', exact: true }).click();
  await page.getByRole('link', { name: 'Morning stretch' }).click();
  await page.getByRole('button', { name: 'Done Today' }).click();
  await expect(page.getByText('Current streak 1 day', { exact: true })).toBeVisible();
  await page.getByRole('link', { name: '← Routines' }).click();
  await expect(page.getByText('Current streak 1 day', { exact: true })).toBeVisible();
  await expect(page.getByRole('img', { name: 'Last 12 weeks: 1 done, 0 skipped, 0 missed' })).toBeVisible();
  await page.getByRole('button', { name: 'Pause Morning stretch' }).click();
  await expect(page.getByText('paused: not planned automatically')).toBeVisible();
  await expectAccessible(page, 'routines with a streak');
});
