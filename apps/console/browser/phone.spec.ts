import { mkdirSync } from 'node:fs';
import { expect, expectAccessible, signIn, test } from './fixtures.js';
import { openScreen, SCREENS, scene } from './scene.js';

const root = new URL('../../../', import.meta.url).pathname;
/** Not docs pictures: looked at when the layout changes (CONSOLE_LOOK_DIR points them elsewhere). */
const shotDir = process.env.CONSOLE_LOOK_DIR ?? `${root}test-results/screens`;

for (const scheme of ['dark', 'light'] as const) {
  test(`the part-2 screens on a 390 px phone in ${scheme} mode: every nav link reachable, nothing wider, accessible`, async ({
    page,
    baseUrl,
  }) => {
    test.slow(); // six screens, each checked by axe and photographed
    mkdirSync(shotDir, { recursive: true });
    const { person, routineId } = await scene(baseUrl);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: scheme });
    await signIn(page, person, '/home');
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const name of ['Home', 'Calendar', 'Tasks', 'Routines', 'Settings', 'Admin']) {
      await expect(nav.getByRole('link', { name, exact: true })).toBeInViewport({ ratio: 1 });
    }
    for (const screen of SCREENS) {
      await openScreen(page, screen, routineId);
      // The page and the box it scrolls in (.content-page) are no wider than the screen.
      const wider = await page.evaluate(() =>
        [document.documentElement, ...document.querySelectorAll('main, .content-page')]
          .filter((box) => box.scrollWidth > box.clientWidth)
          .map((box) => `${box.tagName.toLowerCase()}.${box.className}: ${box.scrollWidth} px`),
      );
      expect(wider, `${screen.path} fits 390 px`).toEqual([]);
      await expectAccessible(page, `${screen.path} at 390 px, ${scheme}`);
      // The page scrolls inside its .content-page: a viewport as tall as that content shows all of it.
      const tall = await page.evaluate(() => document.querySelector('.content-page')?.scrollHeight ?? 844);
      await page.setViewportSize({ width: 390, height: Math.max(844, tall + 200) });
      await page.screenshot({ path: `${shotDir}/${screen.shot}-phone-${scheme}.png`, fullPage: true });
      await page.setViewportSize({ width: 390, height: 844 });
    }
  });
}
