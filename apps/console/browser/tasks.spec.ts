import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, expectAccessible, type Person, signIn, test } from './fixtures.js';

async function create(person: Person, title: string, extra: Record<string, unknown> = {}) {
  const created = await person.api.POST('/api/v1/service/tasks', { body: { title, ...extra } });
  if (!created.data) throw new Error(`create failed: ${JSON.stringify(created.error)}`);
  return created.data;
}

test('the task tree: collapse, keyboard and drag moves, filters, dependencies, bulk import with a preview', async ({
  page,
  person,
}) => {
  const house = await create(person, 'House');
  const kitchen = await create(person, 'Kitchen', { parent_task_id: house.id });
  await create(person, 'Paint the walls', { parent_task_id: kitchen.id, tags: ['diy'] });
  const garden = await create(person, 'Garden');
  const taxes = await create(person, 'Taxes', { priority: 1, tags: ['money'] });
  await person.api.POST('/api/v1/service/tasks/dependencies', {
    body: { task_id: taxes.id, depends_on_id: garden.id },
  });

  await signIn(page, person, '/tasks');
  const tree = page.getByRole('tree', { name: 'Tasks' });
  const item = (name: string) => tree.getByRole('treeitem', { name: new RegExp(`^${name}`) });
  await expect(item('Paint the walls')).toHaveAttribute('aria-level', '3');
  await expectAccessible(page, 'the task tree');

  // Collapse and expand by keyboard.
  await item('House').focus();
  await page.keyboard.press('ArrowLeft');
  await expect(item('House')).toHaveAttribute('aria-expanded', 'false');
  await expect(item('Kitchen')).toHaveCount(0);
  await page.keyboard.press('ArrowRight');
  await expect(item('Kitchen')).toBeVisible();

  // Alt+Right: Garden goes into the task above it (House), as its last child.
  await item('Garden').focus();
  await page.keyboard.press('Alt+ArrowRight');
  await expect(item('Garden')).toHaveAttribute('aria-level', '2');
  await expect(page.getByRole('status').filter({ hasText: 'Moved Garden into House' })).toBeAttached();
  await expect(item('Garden')).toBeFocused();

  // Drag Taxes onto Kitchen's lower half: it goes inside Kitchen.
  await item('Taxes').dragTo(item('Kitchen'), { targetPosition: { x: 80, y: 28 } });
  await expect(item('Taxes')).toHaveAttribute('aria-level', '3');

  // The focused task's dependencies are listed beside the tree.
  await item('Taxes').focus();
  await expect(page.getByRole('complementary', { name: 'Details of Taxes' })).toContainText('Garden');

  // Filters: a tag keeps its matches and the way to them.
  await page.getByRole('combobox', { name: 'Tag' }).selectOption('diy');
  await expect(tree.getByRole('treeitem')).toHaveCount(3);
  await page.getByRole('combobox', { name: 'Tag' }).selectOption('');
  await page.getByRole('combobox', { name: 'Priority' }).selectOption('1');
  await expect(item('Taxes')).toBeVisible();
  await expect(item('Paint the walls')).toHaveCount(0);
  await page.getByRole('combobox', { name: 'Priority' }).selectOption('');

  // Bulk import: a file with an invalid row is previewed and refused, a valid one is imported.
  const dir = tmpdir();
  const bad = join(dir, `tasks-bad-${Date.now()}.csv`);
  const good = join(dir, `tasks-good-${Date.now()}.json`);
  writeFileSync(bad, 'title,priority,duration_min\nBuy paint,2,30\nFix the gate,9,20\n');
  writeFileSync(
    good,
    JSON.stringify([
      { title: 'Buy paint', priority: 2 },
      { title: 'Fix the gate', duration_min: 20 },
    ]),
  );
  await page.getByRole('button', { name: 'Bulk import' }).click();
  await page.getByLabel('CSV or JSON file').setInputFiles(bad);
  await expect(page.getByText('2 rows: 1 valid, 1 invalid.')).toBeVisible();
  const invalid = page.getByRole('table', { name: 'Invalid rows' });
  await expect(invalid.getByRole('row').nth(1)).toContainText('priority');
  await expectAccessible(page, 'an import preview with an invalid row');
  await page.getByLabel('CSV or JSON file').setInputFiles(good);
  await page.getByRole('button', { name: 'Import 2 tasks' }).click();
  await expect(page.getByText('Imported.')).toBeVisible();
  await expect(item('Fix the gate')).toBeVisible();
});
