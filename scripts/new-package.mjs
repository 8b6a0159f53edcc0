// Writes the boilerplate of a workspace package (package.json scripts, tsconfigs). Its tests need no config of
// their own: the root vitest.config.ts finds them by their tier suffix (*.unit.test.ts, *.test.ts).
// Usage: node scripts/new-package.mjs <dir> <name> '<deps json>' '<devDeps json>'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `root` is the repository the package lands in (relative paths to the shared configs are taken from it). */
export function writePackage(dir, name, deps = {}, devDeps = {}, root = '.') {
  const rel = relative(dir, root) || '.';
  mkdirSync(join(dir, 'src'), { recursive: true });
  const pkg = {
    name,
    version: '1.0.0',
    private: true,
    type: 'module',
    exports: { '.': { source: './src/index.ts', types: './dist/index.d.ts', default: './dist/index.js' } },
    scripts: {
      build: 'tsc -p tsconfig.build.json',
    },
    dependencies: deps,
    devDependencies: devDeps,
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    `${JSON.stringify({ extends: `${rel}/tsconfig.base.json`, compilerOptions: { noEmit: true }, include: ['test', 'src/**/*.test.ts'], references: [{ path: './tsconfig.build.json' }] }, null, 2)}\n`,
  );
  writeFileSync(
    join(dir, 'tsconfig.build.json'),
    `${JSON.stringify({ extends: `${rel}/tsconfig.base.json`, compilerOptions: { outDir: 'dist', rootDir: 'src', composite: true, tsBuildInfoFile: 'dist/tsconfig.build.tsbuildinfo' }, include: ['src'], exclude: ['src/**/*.test.ts'] }, null, 2)}\n`,
  );
  referenceFromTestTypecheck(root, join(relative(root, dir), 'tsconfig.build.json'));
}

/** The root typecheck of the tests reads the new package's declarations through a project reference. */
function referenceFromTestTypecheck(root, buildConfig) {
  const file = join(root, 'tsconfig.tests.json');
  if (!existsSync(file)) return;
  const config = JSON.parse(readFileSync(file, 'utf8'));
  const path = `./${buildConfig}`;
  if (config.references.some((ref) => ref.path === path)) return;
  config.references.push({ path });
  config.references.sort((a, b) => a.path.localeCompare(b.path));
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [dir, name, deps = '{}', devDeps = '{}'] = process.argv.slice(2);
  writePackage(dir, name, JSON.parse(deps), JSON.parse(devDeps));
}
