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

test('a weekly routine edited (title, days, window, steps), paused and resumed; its heat map shows only its days', async ({
  page,
  person,
}) => {
  const created = await person.api.POST('/api/v1/service/tasks', {
    body: {
      title: 'Water the ferns',
      duration_min: 15,
      recurrence: { rule: 'FREQ=WEEKLY;BYDAY=MO,TH', window: { start: '09:00', end: '10:00' } },
    },
  });
  if (!created.data) throw new Error(`create failed: ${JSON.stringify(created.error)}`);
  for (const title of ['Fill the can', 'Check the soil']) {
    await person.api.POST('/api/v1/service/tasks', { body: { title, parent_task_id: created.data.id } });
  }

  await signIn(page, person, '/routines');
  const card = page.getByRole('listitem', { name: 'Water the ferns' });
  await expect(card).toContainText('Weekly on Monday, Thursday, 09:00–10:00');
  // A row per weekday the rule can fall on, a column per week.
  const heat = card.getByRole('img', { name: /^Last 12 weeks: / });
  await expect(heat.locator('.heat-label')).toHaveText(['Mon', 'Thu']);
  await expect(heat.locator('.heat-week:not(.heat-labels)')).toHaveCount(12);
  await expect(heat.locator('.heat-week:not(.heat-labels)').first().locator('.heat-day')).toHaveCount(2);

  await card.getByRole('link', { name: 'Water the ferns' }).click();
  const form = page.getByRole('region', { name: 'Rule and window' });
  await form.getByRole('textbox', { name: 'Title' }).fill('Water the house plants');
  await expect(form.getByRole('combobox', { name: 'Repeats' })).toHaveValue('weekly');
  await form.getByText('Saturday', { exact: true }).click();
  await expect(form.getByRole('textbox', { name: 'Rule (RFC 5545 RRULE)' })).toHaveValue('FREQ=WEEKLY;BYDAY=MO,TH,SA');
  const window = form.getByRole('group', { name: 'Window' });
  await window.getByRole('textbox', { name: 'From' }).fill('18:00');
  await window.getByRole('textbox', { name: 'To' }).fill('19:00');
  await form.getByRole('button', { name: 'Save routine' }).click();
  await expect(page.getByRole('heading', { name: 'Water the house plants', level: 1 })).toBeVisible();
  await expect(window.getByRole('textbox', { name: 'From' })).toHaveValue('18:00');

  // Steps of the routine: one added, one removed, one moved up by keyboard (its drag handle).
  const steps = page.getByRole('grid', { name: 'Steps' }).getByRole('row');
  await page.getByRole('textbox', { name: 'New step' }).fill('Mist the leaves');
  await page.getByRole('button', { name: 'Add step' }).click();
  await expect(steps).toHaveText([/Fill the can/, /Check the soil/, /Mist the leaves/]);
  await page.getByRole('button', { name: 'Remove Check the soil' }).click();
  await expect(steps).toHaveText([/Fill the can/, /Mist the leaves/]);
  // Enter lifts it; the drop places go up from where it is (after itself, before itself, before the first).
  await page.getByRole('button', { name: 'Reorder Mist the leaves' }).focus();
  await page.keyboard.press('Enter');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Enter');
  await expect(steps).toHaveText([/Mist the leaves/, /Fill the can/]);
  await expectAccessible(page, 'a routine edited');

  await page.getByRole('button', { name: 'Pause Water the house plants' }).click();
  await page.getByRole('button', { name: 'Resume Water the house plants' }).click();
  await expect(page.getByRole('button', { name: 'Pause Water the house plants' })).toBeVisible();
  await page.getByRole('button', { name: 'Pause Water the house plants' }).click();
  await page.getByRole('link', { name: '← Routines' }).click();
  const edited = page.getByRole('listitem', { name: 'Water the house plants' });
  await expect(edited).toContainText(
    'Weekly on Monday, Thursday, Saturday, 18:00–19:00 · paused: not planned automatically',
  );
  await expect(edited.getByRole('img', { name: /^Last 12 weeks: / }).locator('.heat-label')).toHaveText([
    'Mon',
    'Thu',
    'Sat',
  ]);
  await edited.getByRole('button', { name: 'Resume Water the house plants' }).click();
  await expect(edited).not.toContainText('paused');
  await expectAccessible(page, 'routines, one resumed');
});
