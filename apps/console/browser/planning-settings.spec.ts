import { expect, expectAccessible, nextMonday, signIn, test, weekPath } from './fixtures.js';

test('settings: an edited no-go window is what the next plan avoids; the model chosen, its spend against the caps', async ({
  page,
  person,
}) => {
  await person.api.POST('/api/v1/service/tasks', { body: { title: 'Write the grant', duration_min: 60, priority: 1 } });
  await signIn(page, person, '/settings/no-go');
  const noGo = page.getByRole('region', { name: 'No-go windows' });
  await noGo.getByRole('textbox', { name: 'Label' }).fill('School run');
  await noGo.getByRole('textbox', { name: 'Starts' }).fill('09:00');
  await noGo.getByRole('textbox', { name: 'Ends' }).fill('10:00');
  await noGo.getByRole('button', { name: 'Add no-go window' }).click();
  await expect(noGo.getByRole('listitem')).toContainText([
    'School run Monday, Tuesday, Wednesday, Thursday, Friday 09:00–10:00',
  ]);

  // Edit: the form takes the window (focus on its label), a refused change keeps the old window.
  await noGo.getByRole('button', { name: 'Edit School run' }).click();
  await expect(noGo.getByRole('heading', { name: 'Edit School run' })).toBeVisible();
  await expect(noGo.getByRole('textbox', { name: 'Label' })).toBeFocused();
  await noGo.getByRole('textbox', { name: 'Ends' }).fill('8 o’clock');
  await noGo.getByRole('button', { name: 'Save no-go window' }).click();
  await expect(noGo.getByRole('textbox', { name: 'Ends' })).toHaveAttribute('aria-invalid', 'true');
  await expect(noGo.getByRole('listitem')).toHaveCount(1);
  await expectAccessible(page, 'a no-go window being edited, refused');
  // Corrected (the field left): the server's word on it goes, and stays gone while the rest of the form changes.
  await noGo.getByRole('textbox', { name: 'Ends' }).fill('12:00');
  await noGo.getByRole('textbox', { name: 'Ends' }).press('Tab');
  await noGo.getByText('Friday', { exact: true }).click();
  await expect(noGo.getByRole('checkbox', { name: 'Friday' })).not.toBeChecked();
  await expect(noGo.getByRole('textbox', { name: 'Ends' })).not.toHaveAttribute('aria-invalid', 'true');
  await noGo.getByRole('button', { name: 'Save no-go window' }).click();
  await expect(noGo.getByRole('listitem')).toHaveText([/^School run Monday, Tuesday, Wednesday, Thursday 09:00–12:00/]);
  await expect(noGo.getByRole('heading', { name: 'Add a weekly no-go window' })).toBeVisible();

  // The planning model: the fake model API behind "openai"; a plan with it is a priced call.
  await page.goto('/settings/model');
  const model = page.getByRole('region', { name: 'Model and spend' });
  await expect(
    model.getByText(/^Today \$0\.0000 of a \$[\d.]+ soft cap and \$[\d.]+ hard cap \(0 model calls\)/),
  ).toBeVisible();
  await expect(model.getByText(/^No model spend in \d{4}-\d\d yet\./)).toBeVisible();
  await model.getByRole('combobox', { name: 'Planning model provider' }).selectOption({ label: 'openai (test-model)' });
  await expect(model.getByRole('combobox', { name: 'Planning model provider' })).toHaveValue('openai');
  await expectAccessible(page, 'model and spend');

  // The next plan keeps out of the edited window: Monday's first free hour is now 12:00.
  await page.goto(weekPath(nextMonday()));
  await page.getByRole('button', { name: 'Plan my week' }).click();
  await expect(page.getByRole('button', { name: /^Proposed: Write the grant, Monday 12:00 to 13:00/ })).toBeVisible();

  await page.goto('/settings/model');
  await expect(model.getByText(/^Today \$0\.\d+ of a .* \(1 model call\)/)).toBeVisible();
  await expect(model.getByText(/^Today \$0\.0000 /)).toHaveCount(0);
  // The chart lists the one day with spend, its bar against the daily hard cap.
  const chart = model.getByRole('table', { name: /^Spend per day in .* against the \$[\d.]+ daily hard cap/ });
  await expect(chart.getByRole('row')).toHaveCount(2);
  await expect(chart.getByRole('row').nth(1)).toContainText(/\$0\.\d*[1-9]/);
  await expectAccessible(page, 'a spend chart with a day of spend');
});
