import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { expect, type Person, registerPerson } from './fixtures.js';

/** The screens docs/console.md shows (console-doc.json): a picture name and a route each. */
export const SCREENS = (
  JSON.parse(readFileSync(new URL('./console-doc.json', import.meta.url), 'utf8')) as {
    screens: { shot: string; path: string }[];
  }
).screens;

/** A tenant admin with a small task tree, a daily routine done today, a no-go window. */
export async function scene(baseUrl: string): Promise<{ person: Person; routineId: string }> {
  const person = await registerPerson(baseUrl, 'Ada Lovelace', { tenant_id: randomUUID() });
  const create = async (title: string, extra: Record<string, unknown> = {}) => {
    const created = await person.api.POST('/api/v1/service/tasks', { body: { title, ...extra } });
    if (!created.data) throw new Error(`create failed: ${JSON.stringify(created.error)}`);
    return created.data;
  };
  const house = await create('Renovate the kitchen', { priority: 2, tags: ['home'] });
  const walls = await create('Paint the walls', { parent_task_id: house.id, tags: ['diy'] });
  await create('Buy paint', { parent_task_id: walls.id, duration_min: 45 });
  await create('Sand the doors', { parent_task_id: walls.id });
  await create('Order the worktop', { parent_task_id: house.id, priority: 1 });
  await create('File the tax return', { priority: 1, tags: ['money'] });
  await create('Plan the holiday', { priority: 4 });
  const routine = await create('Morning stretch', {
    duration_min: 15,
    recurrence: { rule: 'FREQ=DAILY', window: { start: '07:00', end: '08:00' } },
  });
  await create('Roll out the mat', { parent_task_id: routine.id, duration_min: 5 });
  const today = await person.api.GET('/api/v1/service/tasks/{task_id}/occurrences', {
    params: { path: { task_id: routine.id } },
  });
  const todays = today.data?.items.find((o) => o.status !== 'done' && o.occurrence_date !== null);
  if (todays) {
    await person.api.PATCH('/api/v1/service/tasks/{task_id}', {
      params: { path: { task_id: todays.id } },
      body: { status: 'done' },
    });
  }
  await create('Weekly review', {
    recurrence: { rule: 'FREQ=WEEKLY;BYDAY=FR', window: { start: '16:00', end: '17:00' } },
  });
  await person.api.POST('/api/v1/service/settings/no-go-windows', {
    body: { kind: 'weekly', label: 'Lunch', days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '12:30', end: '13:30' },
  });
  return { person, routineId: routine.id };
}

/** What shows once each screen's first view is there. */
const READY: Record<string, (page: Page) => Promise<void>> = {
  '/home': (p) => expect(p.getByRole('link', { name: /^Overdue / })).toBeVisible(),
  '/tasks': (p) => expect(p.getByRole('treeitem', { name: /^Buy paint/ })).toBeVisible(),
  '/routines': (p) => expect(p.getByText('Current streak 1 day').first()).toBeVisible(),
  '/routines/:id': (p) => expect(p.getByRole('heading', { name: 'Occurrences' })).toBeVisible(),
  '/settings': (p) => expect(p.getByRole('textbox', { name: 'Monday from' })).toBeVisible(),
  '/admin': (p) => expect(p.getByRole('row', { name: /^Database/ })).toBeVisible(),
};

/** Opens one of SCREENS (the scene's routine for `:id`), waits for its first view, and moves the pointer aside. */
export async function openScreen(page: Page, screen: { path: string }, routineId: string): Promise<void> {
  await page.goto(screen.path.replace(':id', routineId));
  const ready = READY[screen.path];
  if (!ready) throw new Error(`no ready check for ${screen.path}`);
  await ready(page);
  await page.mouse.move(0, 0);
}
