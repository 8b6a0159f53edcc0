import { at, block, drag, expect, nextMonday, pointOf, scheduledTask, signIn, test, weekPath } from './fixtures.js';

test('a move the API refuses is not kept, and its problem detail is shown', async ({ page, person }) => {
  const monday = nextMonday();
  const task = await scheduledTask(person, 'Sort the mail', at(monday, '13:00'), at(monday, '13:30'));
  await signIn(page, person, weekPath(monday));
  await expect(block(page, 'Sort the mail')).toHaveAccessibleName('Sort the mail, Monday 13:00 to 13:30');

  // Meanwhile (another device) the task became a routine: its series is never scheduled, so a new slot is 422.
  const changed = await person.api.PATCH('/api/v1/service/tasks/{task_id}', {
    params: { path: { task_id: task.id } },
    body: { recurrence: { rule: 'FREQ=WEEKLY;BYDAY=MO', auto_schedule: false } },
  });
  expect(changed.response.status).toBe(200);

  const box = await block(page, 'Sort the mail').boundingBox();
  if (!box) throw new Error('no block');
  const to = await pointOf(page, monday.add({ days: 1 }), 15 * 60);
  await drag(page, { x: box.x + box.width / 2, y: box.y + 6 }, { x: to.x, y: to.y + 6 });
  await expect(page.getByRole('alert')).toContainText("a routine's series is never scheduled");
  // The refused slot is rolled back, and the week is read again (the move settled): it shows what the server holds.
  // Becoming a routine cleared the task's slot (a series is never scheduled), so its block leaves the
  // week rather than going back to Monday; no block ever stays at the refused place.
  await expect(block(page, 'Sort the mail')).toHaveCount(0);
});
