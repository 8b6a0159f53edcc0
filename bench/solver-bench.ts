// The builtin solver against its exact reference and its greedy baselines (ADR 052):
//   npm run bench -- solver-bench   (SMALL=40 MEDIUM=24 OVERLOAD=10 set the seed counts per band, BANDS=small,mid,medium,
//   overload,scale,chain the parts run, MEDIUM_FROM=k starts the 20-30 band at its k-th seed, REFERENCE_SECONDS=240 the reference's time limit per instance; its optima are
//   kept in bench/results/solver-reference-cache.json, RETRY_UNPROVEN=1 retries the ones it could not prove)
// The harness, solver-bench-run.ts, shares the seeded instance generator and the HiGHS reference with
// packages/scheduling's tests (not part of its exports), so it runs under vite-node from that package, which
// resolves their `.js` specifiers to the sources: the package is measured as its tests see it. Prints a table;
// nothing here asserts a timing.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const scheduling = join(root, 'packages', 'scheduling');
const vitest = createRequire(join(scheduling, 'package.json')).resolve('vitest/package.json');
const viteNode = join(dirname(createRequire(vitest).resolve('vite-node/package.json')), 'vite-node.mjs');
const result = spawnSync(process.execPath, [viteNode, join(root, 'bench', 'solver-bench-run.ts')], {
  cwd: scheduling,
  stdio: 'inherit',
  env: process.env,
});
process.exit(result.status ?? 1);
