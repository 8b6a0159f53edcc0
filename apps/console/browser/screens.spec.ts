import { mkdirSync } from 'node:fs';
import {
  at,
  block,
  expect,
  expectAccessible,
  nextMonday,
  registerPerson,
  scheduledTask,
  signIn,
  test,
  weekPath,
} from './fixtures.js';

const root = new URL('../../../', import.meta.url).pathname;
/** `CONSOLE_SCREENSHOTS=write` refreshes the README's pictures; otherwise they go to test-results only. */
const shotDir = process.env.CONSOLE_SCREENSHOTS === 'write' ? `${root}docs/images` : `${root}test-results/screens`;

/** A believable week: a few scheduled tasks of each priority, one done, a no-go window at lunch. */
async function sceneWeek(baseUrl: string) {
  const person = await registerPerson(baseUrl, 'Ada Lovelace');
  const monday = nextMonday();
  const plan: [number, string, string, string, number][] = [
    [0, 'Plan the sprint', '09:00', '10:00', 1],
    [0, 'Review pull requests', '10:30', '11:30', 2],
    [0, 'Gym', '17:30', '18:30', 4],
    [1, 'Write the quarterly report', '09:00', '11:00', 1],
    [1, 'Call the dentist', '14:00', '14:30', 3],
    [2, 'Design review', '10:00', '11:00', 2],
    [2, 'Water the plants', '16:00', '16:15', 5],
    [3, 'Pay the rent', '09:30', '10:00', 2],
    [3, '1:1 with Sam', '15:00', '15:30', 3],
    [4, 'Ship the release', '11:00', '12:30', 1],
    [4, 'Book the train', '15:30', '16:00', 4],
  ];
  const created = await Promise.all(
    plan.map(([day, title, from, to, priority]) =>
      scheduledTask(person, title, at(monday.add({ days: day }), from), at(monday.add({ days: day }), to), priority),
    ),
  );
  const done = created[0];
  if (done) {
    await person.api.PATCH('/api/v1/service/tasks/{task_id}', {
      params: { path: { task_id: done.id } },
      body: { status: 'done' },
    });
  }
  await person.api.POST('/api/v1/service/settings/no-go-windows', {
    body: { kind: 'weekly', label: 'Lunch', days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '12:30', end: '13:30' },
  });
  await Promise.all(
    ['Renew the passport', 'Clean the garage'].map((title) =>
      person.api.POST('/api/v1/service/tasks', { body: { title, duration_min: 45 } }),
    ),
  );
  return { person, monday };
}

test('the week in light and dark (the README pictures), each accessible', async ({ page, baseUrl }) => {
  mkdirSync(shotDir, { recursive: true });
  const { person, monday } = await sceneWeek(baseUrl);
  await signIn(page, person, weekPath(monday));
  await expect(block(page, 'Ship the release')).toBeVisible();
  await page.mouse.move(0, 0);
  await page.screenshot({ path: `${shotDir}/console-week.png` });
  await page.emulateMedia({ colorScheme: 'dark' });
  await expectAccessible(page, 'the week in dark mode');
  await page.screenshot({ path: `${shotDir}/console-week-dark.png` });
  await page.emulateMedia({ colorScheme: 'light' });

  await page.getByRole('link', { name: 'Month' }).click();
  await expect(page.getByRole('grid', { name: 'Month' })).toBeVisible();
  await expectAccessible(page, 'the month');
  await page.getByRole('link', { name: 'Agenda' }).click();
  await expect(page.getByRole('heading', { level: 2 }).first()).toBeVisible();
  await expectAccessible(page, 'the agenda');
});

test('the day view works on a 390 px phone screen', async ({ page, baseUrl }) => {
  const person = await registerPerson(baseUrl);
  const monday = nextMonday();
  await scheduledTask(person, 'Water the plants', at(monday, '09:00'), at(monday, '09:30'));
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, person, `/calendar/day/${monday.toString()}`);
  const water = block(page, 'Water the plants');
  await expect(water).toHaveAccessibleName('Water the plants, Monday 09:00 to 09:30');
  const box = await water.boundingBox();
  expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await expectAccessible(page, 'the day view at 390 px');
  await page.screenshot({ path: `${shotDir}/console-day-phone.png` });
  await water.click();
  await expect(page.getByRole('dialog', { name: 'Task Water the plants' })).toBeVisible();
  await expectAccessible(page, 'the task drawer at 390 px');
});
