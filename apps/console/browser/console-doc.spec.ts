import { mkdirSync } from 'node:fs';
import { expectAccessible, signIn, test } from './fixtures.js';
import { openScreen, SCREENS, scene } from './scene.js';

const root = new URL('../../../', import.meta.url).pathname;
/** `CONSOLE_SCREENSHOTS=write` (`npm run generate`) refreshes docs/console.md's pictures; else test-results. */
const shotDir = process.env.CONSOLE_SCREENSHOTS === 'write' ? `${root}docs/images` : `${root}test-results/screens`;

test('every screen of docs/console.md, each accessible (its pictures)', async ({ page, baseUrl }) => {
  test.slow(); // six screens, each checked by axe and photographed
  mkdirSync(shotDir, { recursive: true });
  const { person, routineId } = await scene(baseUrl);
  await signIn(page, person, '/home');
  for (const screen of SCREENS) {
    await openScreen(page, screen, routineId);
    await expectAccessible(page, screen.path);
    await page.screenshot({ path: `${shotDir}/${screen.shot}.png` });
  }
});
