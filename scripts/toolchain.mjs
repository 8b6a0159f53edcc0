#!/usr/bin/env node
// Bootstraps the pinned toolchain (Node 24 and pnpm, both from the npm registry) into .toolchain/ when the
// host's Node is older, installs dependencies with the frozen lockfile, and then runs one of:
//   start            build the all-in-one runtime and run it (signals forwarded, exit code kept)
//   start:distributed  build the six services and run them as separate processes behind the gateway
//                    driven by deploy/envoy/envoy.yaml (needs DATABASE_URL, NATS_URL, REDIS_URL and the secrets)
//   test             build and run every test (unit, integration, end-to-end, then the fault tier)
//   run <task...>    any turbo task (build, typecheck, lint, generate)
//   bench [name]     run a benchmark harness from bench/ (default: ratios)
// Written for the host's Node (>= 20) with no dependencies, because it runs before anything is installed.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const NODE_VERSION = '24.21.0';
const PNPM_VERSION = '10.34.9';
const root = dirname(dirname(fileURLToPath(import.meta.url)));
const toolDir = join(root, '.toolchain');
const binDir = join(toolDir, 'bin');

function log(message) {
  process.stderr.write(`[routinely] ${message}\n`);
}

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...options });
  if (result.status !== 0) {
    log(`${cmd} ${args.join(' ')} failed (${result.status ?? result.signal})`);
    process.exit(result.status ?? 1);
  }
}

function ensureToolchain() {
  // Running under the pinned Node itself (it is first on PATH in child processes) counts as pinned, not host:
  // otherwise the toolchain would delete the binary it runs on.
  const useHost = Number(process.versions.node.split('.')[0]) >= 24 && !process.execPath.startsWith(toolDir);
  const wanted = `${NODE_VERSION}+${PNPM_VERSION}+${useHost ? 'host' : 'pinned'}`;
  const stamp = join(toolDir, 'stamp');
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== wanted) {
    log(`installing pnpm ${PNPM_VERSION}${useHost ? '' : ` and Node ${NODE_VERSION}`} into .toolchain/`);
    rmSync(toolDir, { recursive: true, force: true });
    mkdirSync(binDir, { recursive: true });
    writeFileSync(join(toolDir, 'package.json'), '{"private":true}\n');
    const pkgs = [`pnpm@${PNPM_VERSION}`];
    if (!useHost) pkgs.push(`node-${process.platform}-${process.arch}@${NODE_VERSION}`);
    run('npm', ['install', '--no-save', '--no-package-lock', '--ignore-scripts', '--prefix', toolDir, ...pkgs]);
    const nodeBin = useHost
      ? process.execPath
      : join(toolDir, 'node_modules', `node-${process.platform}-${process.arch}`, 'bin', 'node');
    symlinkSync(nodeBin, join(binDir, 'node'));
    writeFileSync(
      join(binDir, 'pnpm'),
      `#!/bin/sh\nexec "${join(binDir, 'node')}" "${join(toolDir, 'node_modules', 'pnpm', 'bin', 'pnpm.cjs')}" "$@"\n`,
      { mode: 0o755 },
    );
    writeFileSync(stamp, wanted);
  }
  // Every child (pnpm, turbo, the tests, the service) sees the pinned Node first on PATH.
  const env = { ...process.env, PATH: `${binDir}:${join(root, 'node_modules', '.bin')}:${process.env.PATH}` };
  // The host's npm config points node-gyp at the host's Node headers; pinned Node brings its own.
  delete env.npm_config_nodedir;
  delete env.NPM_CONFIG_NODEDIR;
  env.npm_config_update_notifier = 'false';
  return env;
}

function ensureDependencies(env) {
  const lock = readFileSync(join(root, 'pnpm-lock.yaml'));
  const digest = createHash('sha256').update(lock).update(NODE_VERSION).digest('hex');
  const stamp = join(root, 'node_modules', '.routinely-install');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) return;
  log('installing dependencies (frozen lockfile)');
  run(join(binDir, 'pnpm'), ['install', '--frozen-lockfile', '--prefer-offline', '--reporter=append-only'], { env });
  writeFileSync(stamp, digest);
}

function turbo(env, args) {
  run(join(binDir, 'pnpm'), ['exec', 'turbo', ...args, '--output-logs=errors-only', '--log-order=grouped'], {
    env,
  });
}

/** Adds up the JSON reports vitest wrote in this run (packages and services). */
function summariseTestReports(since) {
  const totals = { passed: 0, failed: 0, skipped: 0, files: 0 };
  const groups = ['packages', 'services', 'apps'].flatMap((g) => readdirSync(join(root, g)).map((d) => join(g, d)));
  const reports = [...groups, 'test-e2e', 'test-services', 'deploy'].flatMap((dir) =>
    ['vitest.json', 'vitest-faults.json'].map((name) => join(root, dir, 'test-results', name)),
  );
  for (const file of reports) {
    if (!existsSync(file) || statSync(file).mtimeMs < since) continue;
    const report = JSON.parse(readFileSync(file, 'utf8'));
    totals.passed += report.numPassedTests ?? 0;
    totals.failed += report.numFailedTests || report.numFailedTestSuites || 0;
    totals.skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    totals.files += report.testResults?.length ?? 0;
  }
  return totals;
}

const [command = 'start', ...rest] = process.argv.slice(2);
const env = ensureToolchain();
ensureDependencies(env);

if (command === 'run') {
  turbo(env, ['run', ...rest]);
} else if (command === 'test') {
  // Types and lint first: a change that does not type-check or lint fails the test command too.
  turbo(env, ['run', 'build', 'typecheck', 'lint']);
  const started = Date.now();
  const result = spawnSync(
    join(binDir, 'pnpm'),
    ['exec', 'turbo', 'run', 'test', 'test:faults', '--continue', '--concurrency=1', '--log-order=grouped', ...rest],
    { stdio: 'inherit', cwd: root, env },
  );
  const totals = summariseTestReports(started);
  console.log(
    `\nTests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped (${totals.files} files)`,
  );
  process.exit(result.status === 0 && totals.failed === 0 ? 0 : 1);
} else if (command === 'bench') {
  turbo(env, ['run', 'build']);
  // `npm run bench -- ratios` and `-- ratios.ts` name the same harness; with no name, the ratios run. The
  // harnesses are TypeScript run by the pinned Node itself (type stripping: erasable syntax only).
  const harness = (rest[0] ?? 'ratios').replace(/(\.ts)?$/, '.ts');
  run(join(binDir, 'node'), [join(root, 'bench', harness), ...rest.slice(1)], { env });
} else if (command === 'start' || command === 'start:distributed') {
  const [pkg, entry] =
    command === 'start'
      ? ['@routinely/all-in-one', join(root, 'apps', 'all-in-one', 'dist', 'main.js')]
      : ['@routinely/distributed', join(root, 'apps', 'distributed', 'dist', 'main.js')];
  turbo(env, ['run', 'build', `--filter=${pkg}...`]);
  const child = spawn(join(binDir, 'node'), [entry], { stdio: 'inherit', cwd: root, env });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => child.kill(signal));
  }
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
} else {
  log(`unknown command ${command}`);
  process.exit(2);
}
