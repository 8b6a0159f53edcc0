// `npm run generate`: writes docs/console.md; with the real servers named (DATABASE_URL, REDIS_URL, NATS_URL)
// it also takes the pictures again through the browser tier (CONSOLE_SCREENSHOTS=write, console-doc.spec.ts).
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { docTarget, renderConsoleDoc } from './console-doc.mjs';

writeFileSync(docTarget, renderConsoleDoc());
console.log(`wrote ${docTarget.pathname}`);
if (
  process.env.DATABASE_URL &&
  process.env.REDIS_URL &&
  process.env.NATS_URL &&
  process.env.CONSOLE_SCREENSHOTS !== 'skip'
) {
  const result = spawnSync(
    'playwright',
    ['test', '--config', 'playwright.config.ts', 'console-doc.spec.ts', 'screens.spec.ts'],
    {
      stdio: 'inherit',
      cwd: new URL('..', import.meta.url).pathname,
      env: { ...process.env, CONSOLE_SCREENSHOTS: 'write' },
    },
  );
  process.exit(result.status ?? 1);
} else {
  console.log('pictures not taken: DATABASE_URL, REDIS_URL and NATS_URL name the servers the browser tier needs');
}
