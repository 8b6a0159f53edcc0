import type { Page } from '@playwright/test';
import { at, block, expect, expectAccessible, nextMonday, scheduledTask, signIn, test, weekPath } from './fixtures.js';

/** Presses Tab until the focused element is the one wanted (at most `limit` times): keyboard only. */
async function tabTo(page: Page, name: RegExp | string, limit = 60): Promise<void> {
  for (let i = 0; i < limit; i += 1) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLInputElement | null;
      if (!el) return '';
      const labelledBy = el.getAttribute('aria-labelledby');
      const byId = labelledBy ? document.getElementById(labelledBy.split(' ')[0] ?? '')?.textContent : undefined;
      return el.getAttribute('aria-label') ?? byId ?? el.labels?.[0]?.textContent ?? el.textContent?.trim() ?? '';
    });
    if (typeof name === 'string' ? focused === name : name.test(focused)) return;
  }
  throw new Error(`Tab never reached ${name}`);
}

/** The focused element shows where focus is (an outline or a ring), as a keyboard user needs to see it. */
async function expectFocusVisible(page: Page): Promise<void> {
  const ring = await page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return 'nothing focused';
    const style = getComputedStyle(el);
    return style.outlineStyle !== 'none' && style.outlineWidth !== '0px' ? 'outline' : style.boxShadow;
  });
  expect(ring, 'a visible focus indicator').not.toMatch(/^(none|nothing focused)$/);
}

test('keyboard only: sign in, plan the week, apply, move a block and save it', async ({ page, person }) => {
  const monday = nextMonday();
  await person.api.POST('/api/v1/service/tasks', {
    body: { title: 'Read the contract', duration_min: 60, priority: 1 },
  });
  await scheduledTask(
    person,
    'Pay the rent',
    at(monday.add({ days: 2 }), '11:00'),
    at(monday.add({ days: 2 }), '11:30'),
  );

  await page.goto(`/sign-in?return=${encodeURIComponent(weekPath(monday))}`);
  await tabTo(page, 'Email');
  await page.keyboard.type(person.email);
  await page.keyboard.press('Tab');
  await page.keyboard.type(person.password);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`${weekPath(monday)}$`));

  await tabTo(page, 'Plan my week');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('button', { name: /^Proposed: Read the contract, Monday 09:00/ })).toBeVisible();
  await tabTo(page, 'Apply');
  await page.keyboard.press('Enter');
  await expect(block(page, 'Read the contract')).toHaveAccessibleName('Read the contract, Monday 09:00 to 10:00');

  // Focus a block; arrows move it by 15 minutes (right: a day later), Escape cancels, Enter saves.
  await tabTo(page, /^Pay the rent, /);
  await page.keyboard.press('ArrowDown');
  await expect(page.getByRole('status').filter({ hasText: 'Enter saves' })).toContainText(
    'Pay the rent, Wednesday 11:15 to 11:45',
  );
  await page.keyboard.press('Escape');
  await expect(page.getByRole('status').filter({ hasText: 'Enter saves' })).toHaveCount(0);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Shift+ArrowDown');
  await expectAccessible(page, 'a block being moved by keyboard');
  await page.keyboard.press('Enter');
  const moved = block(page, 'Pay the rent');
  await expect(moved).toHaveAccessibleName('Pay the rent, Thursday 11:30 to 12:15');
  await expect(moved).toBeFocused();
  // Undo from the keyboard too (Ctrl+Z, the shortcut its button announces), for 10 seconds.
  await expect(page.getByRole('button', { name: 'Undo' })).toHaveAttribute('aria-keyshortcuts', 'Control+Z');
  await page.keyboard.press('Control+z');
  await expect(block(page, 'Pay the rent')).toHaveAccessibleName('Pay the rent, Wednesday 11:00 to 11:30');
});

test('keyboard only: a weekly routine made with the form, its steps ordered, saved', async ({ page, person }) => {
  await signIn(page, person, '/routines/new');
  // A person starts tabbing once the form is on screen (its route's code loads on demand).
  await expect(page.getByRole('textbox', { name: 'Title' })).toBeVisible();
  await tabTo(page, 'Title');
  await expectFocusVisible(page);
  await page.keyboard.type('Evening walk');
  await page.keyboard.press('Tab');
  const repeats = page.getByRole('combobox', { name: 'Repeats' });
  await expect(repeats).toBeFocused();
  await expectFocusVisible(page);
  // A closed select takes the arrows: Every day, Every weekday, Weekly on chosen days.
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await expect(repeats).toHaveValue('weekly');
  await tabTo(page, 'Wednesday');
  await expectFocusVisible(page);
  await page.keyboard.press('Space');
  await expect(page.getByRole('textbox', { name: 'Rule (RFC 5545 RRULE)' })).toHaveValue('FREQ=WEEKLY;BYDAY=MO,WE');
  await tabTo(page, 'From');
  await page.keyboard.type('18:00');
  await page.keyboard.press('Tab');
  await page.keyboard.type('19:00');
  await tabTo(page, 'New step');
  for (const step of ['Shoes on', 'Leash the dog']) {
    await page.keyboard.type(step);
    await page.keyboard.press('Enter');
  }
  await tabTo(page, 'Move Leash the dog up');
  await expectFocusVisible(page);
  await page.keyboard.press('Enter');
  await expect(page.locator('.step-title')).toHaveText(['Leash the dog', 'Shoes on']);
  await expectAccessible(page, 'the routine form by keyboard');
  await tabTo(page, 'Save routine');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Evening walk', level: 1 })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Rule (RFC 5545 RRULE)' })).toHaveValue('FREQ=WEEKLY;BYDAY=MO,WE');
  await expect(page.getByRole('grid', { name: 'Steps' }).getByRole('row')).toHaveText([/Leash the dog/, /Shoes on/]);
  await expect(page.getByRole('group', { name: 'Window' }).getByRole('textbox', { name: 'From' })).toHaveValue('18:00');
});

test('keyboard only: the task tree moves a task up, into the one above and out again; the drawer returns focus', async ({
  page,
  person,
}) => {
  for (const title of ['Alpha', 'Bravo', 'Charlie']) {
    await person.api.POST('/api/v1/service/tasks', { body: { title } });
  }
  await signIn(page, person, '/tasks');
  const tree = page.getByRole('tree', { name: 'Tasks' });
  const item = (name: string) => tree.getByRole('treeitem', { name: new RegExp(`^${name}`) });
  await expect(item('Charlie')).toBeVisible();
  await tabTo(page, /Alpha/);
  await expectFocusVisible(page);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await expect(item('Charlie')).toBeFocused();

  await page.keyboard.press('Alt+ArrowUp');
  await expect(tree.getByRole('treeitem')).toHaveText([/Alpha/, /Charlie/, /Bravo/]);
  await expect(item('Charlie')).toBeFocused();
  await page.keyboard.press('Alt+ArrowRight');
  await expect(item('Charlie')).toHaveAttribute('aria-level', '2');
  await expect(page.getByRole('status').filter({ hasText: 'Moved Charlie into Alpha' })).toBeAttached();
  await expect(item('Charlie')).toBeFocused();
  await page.keyboard.press('Alt+ArrowLeft');
  await expect(item('Charlie')).toHaveAttribute('aria-level', '1');
  await expect(tree.getByRole('treeitem')).toHaveText([/Alpha/, /Charlie/, /Bravo/]);
  await expect(item('Charlie')).toBeFocused();
  await expectAccessible(page, 'the task tree after keyboard moves');

  // Enter opens the task's drawer; Escape closes it and focus is back on the task.
  await page.keyboard.press('Enter');
  await expect(page.getByRole('dialog', { name: 'Task Charlie' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog', { name: 'Task Charlie' })).toHaveCount(0);
  await expect(item('Charlie')).toBeFocused();
});
