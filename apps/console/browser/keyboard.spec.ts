import type { Page } from '@playwright/test';
import { at, block, expect, expectAccessible, nextMonday, scheduledTask, test, weekPath } from './fixtures.js';

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
