import { expect, expectAccessible, signIn, test } from './fixtures.js';

/** A problem+json answer as the API sends one when a service is down. */
const DOWN = {
  status: 503,
  contentType: 'application/problem+json',
  body: JSON.stringify({
    type: 'urn:routinely:problem:service_unavailable',
    title: 'Service unavailable',
    status: 503,
    detail: 'The task service is not answering right now',
    code: 'service_unavailable',
  }),
};

test('loading shows skeletons, a failed read says the problem in words with a retry, an empty list says what to do', async ({
  page,
  person,
}) => {
  // Loading: the tree's read held back, a skeleton where the rows will be.
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route('**/api/v1/service/routine-tasks/tree**', async (route) => {
    await held;
    await route.fallback();
  });
  await signIn(page, person, '/tasks');
  await expect(page.getByRole('status', { name: 'Loading tasks' })).toBeVisible();
  await expectAccessible(page, 'tasks loading');
  release();
  await expect(page.getByText('No tasks yet.')).toBeVisible();
  await expectAccessible(page, 'tasks empty');
  await page.unroute('**/api/v1/service/routine-tasks/tree**');

  // Failing: the problem's detail and "Try again", which reads again once the service is back.
  await page.route('**/api/v1/service/routine-tasks/tree**', (route) => route.fulfill(DOWN));
  await page.goto('/routines');
  await expect(page.getByRole('alert')).toContainText('The task service is not answering right now', {
    timeout: 20_000,
  });
  await expectAccessible(page, 'routines failing');
  await page.unroute('**/api/v1/service/routine-tasks/tree**');
  await page.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByText('No routines yet.')).toBeVisible();

  await page.route('**/api/v1/service/webhooks', (route) => route.fulfill(DOWN));
  await page.goto('/settings/webhooks');
  await expect(page.getByRole('alert').filter({ hasText: 'not answering' })).toBeVisible({ timeout: 20_000 });
  await expectAccessible(page, 'settings with a failing section');
});
