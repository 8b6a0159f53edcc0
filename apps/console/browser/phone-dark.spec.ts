import { mkdirSync } from 'node:fs';
import { expect, expectAccessible, signIn, test } from './fixtures.js';
import { READY, SCREENS, scene } from './scene.js';

const root = new URL('../../../', import.meta.url).pathname;
/** Not docs pictures: looked at when the layout changes (CONSOLE_LOOK_DIR points them elsewhere). */
const shotDir = process.env.CONSOLE_LOOK_DIR ?? `${root}test-results/screens`;

test('the part-2 screens on a 390 px phone in dark mode: every nav link reachable, nothing wider, accessible', async ({
  page,
  baseUrl,
}) => {
  test.slow(); // six screens, each checked by axe and photographed
  mkdirSync(shotDir, { recursive: true });
  const { person, routineId } = await scene(baseUrl);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await signIn(page, person, '/home');
  const nav = page.getByRole('navigation', { name: 'Main' });
  for (const name of ['Home', 'Calendar', 'Tasks', 'Routines', 'Settings', 'Admin']) {
    await expect(nav.getByRole('link', { name, exact: true })).toBeInViewport({ ratio: 1 });
  }
  for (const screen of SCREENS) {
    await page.goto(screen.path.replace(':id', routineId));
    const ready = READY[screen.path];
    if (!ready) throw new Error(`no ready check for ${screen.path}`);
    await ready(page);
    await page.mouse.move(0, 0);
    // The page and the box it scrolls in (.content-page) are no wider than the screen.
    const wider = await page.evaluate(() =>
      [document.documentElement, ...document.querySelectorAll('main, .content-page')]
        .filter((box) => box.scrollWidth > box.clientWidth)
        .map((box) => `${box.tagName.toLowerCase()}.${box.className}: ${box.scrollWidth} px`),
    );
    expect(wider, `${screen.path} fits 390 px`).toEqual([]);
    await expectAccessible(page, `${screen.path} at 390 px, dark`);
    // The page scrolls inside its .content-page: a viewport as tall as that content shows all of it.
    const tall = await page.evaluate(() => document.querySelector('.content-page')?.scrollHeight ?? 844);
    await page.setViewportSize({ width: 390, height: Math.max(844, tall + 200) });
    await page.screenshot({ path: `${shotDir}/${screen.shot}-phone-dark.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
  }
});
