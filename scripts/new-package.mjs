// Writes the boilerplate of a workspace package (package.json scripts, tsconfigs). Its tests need no config of
// their own: the root vitest.config.ts finds them by their tier suffix (*.unit.test.ts, *.test.ts).
// Usage: node scripts/new-package.mjs <dir> <name> '<deps json>' '<devDeps json>'
import { mkdirSync, writeFileSync } from 'node:fs';
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
      typecheck: 'tsc --noEmit',
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
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [dir, name, deps = '{}', devDeps = '{}'] = process.argv.slice(2);
  writePackage(dir, name, JSON.parse(deps), JSON.parse(devDeps));
}
