#!/usr/bin/env node
// Bootstraps the pinned toolchain (Node 24 and pnpm, both from the npm registry) into .toolchain/ when the
// host's Node is older, installs dependencies with the frozen lockfile, and then runs one of:
//   start            build the all-in-one runtime and run it (signals forwarded, exit code kept)
//   start:distributed  build the six services and run them as separate processes behind the gateway
//                    driven by deploy/envoy/envoy.yaml (needs DATABASE_URL, NATS_URL, REDIS_URL and the secrets)
//   test             build, typecheck the tests, lint, then every test tier: unit, integration, e2e and browser in
//                    turn, the fault tier beside them
//   typecheck        build (which checks the sources), then the tests' types in one program
//   test:<tier>      build and run one tier (vitest's arguments may follow)
//   lint             Biome over the repository, knip (nothing unused), then the packages' own lint tasks (the API
//                    document's redocly)
//   run <task...>    any turbo task (build, typecheck, lint, generate)
//   bench [name]     run a benchmark harness from bench/ (default: ratios)
// Written for the host's Node (>= 20) with no dependencies, because it runs before anything is installed.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
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
  // V8's code cache on disk for every Node process of a run: the tiers start the services' processes a hundred
  // times or more, and each start compiles the same modules (1.48 -> 1.10 s CPU for the all-in-one's import).
  env.NODE_COMPILE_CACHE ??= join(root, 'node_modules', '.cache', 'node-compile-cache');
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

/**
 * Biome over the whole repository in one process: its type-aware rules (noFloatingPromises) build the module
 * graph once, where one run per package built it once per package (about 10 s against 68 s for the tree).
 */
function biome(env, args = []) {
  run(join(binDir, 'pnpm'), ['exec', 'biome', 'check', ...args, '.'], { env });
}

/** Files, exports and types nothing imports fail lint (knip.jsonc names each workspace's entry points). */
function knip(env) {
  run(join(binDir, 'pnpm'), ['exec', 'knip', '--no-progress'], { env });
}

/**
 * The tests' types, every package's in one program (tsconfig.tests.json), then the bench harnesses'. The sources
 * were checked by their build, and the project references make the tests read their declarations instead of
 * compiling them again; one program parses the shared declarations (Node, fastify, zod) once, not per package.
 */
function typecheckTests(env) {
  run(join(binDir, 'pnpm'), ['exec', 'tsc', '-p', 'tsconfig.tests.json'], { env });
  // The bench harnesses run as TypeScript on Node's type stripping, under compiler options of their own.
  run(join(binDir, 'pnpm'), ['exec', 'tsc', '-p', 'bench/tsconfig.json'], { env });
}

/**
 * The test tiers in the order `npm test` runs them: the root vitest configuration's projects, then the browser
 * tier (Playwright Test driving Chromium against an all-in-one, apps/console/playwright.config.ts).
 */
const TIERS = ['unit', 'integration', 'e2e', 'faults', 'browser'];

/** The command of one tier: one vitest (or Playwright) process; its JSON report goes to test-results/<tier>.json. */
function tierCommand(tier, args) {
  const name = `the ${tier} tier`;
  if (tier === 'browser') {
    const config = join(root, 'apps', 'console', 'playwright.config.ts');
    const cwd = join(root, 'apps', 'console');
    return { name, args: ['exec', 'playwright', 'test', '--config', config, ...args], cwd };
  }
  const flags = tier === 'faults' ? ['--no-file-parallelism'] : [];
  const report = `--outputFile.json=test-results/${tier}.json`;
  return { name, args: ['exec', 'vitest', 'run', '--project', tier, report, ...flags, ...args] };
}

/**
 * Runs commands side by side (`{ name, args, cwd }`, each `pnpm <args>`); answers whether each exited 0. The first
 * one's output streams as it comes (unless `held`); the others' is held and printed whole when they end, so no two
 * interleave.
 */
function sideBySide(env, commands, { held: holdAll = false } = {}) {
  return Promise.all(
    commands.map(
      (command, index) =>
        new Promise((resolve) => {
          const child = spawn(join(binDir, 'pnpm'), command.args, {
            stdio: index === 0 && !holdAll ? 'inherit' : ['ignore', 'pipe', 'pipe'],
            cwd: command.cwd ?? root,
            env,
          });
          const held = [];
          child.stdout?.on('data', (chunk) => held.push(chunk));
          child.stderr?.on('data', (chunk) => held.push(chunk));
          child.on('close', (code) => {
            if (held.length > 0) process.stdout.write(`\n[routinely] ${command.name}:\n${Buffer.concat(held)}`);
            if (code !== 0) log(`${command.name} failed (${code})`);
            resolve(code === 0);
          });
        }),
    ),
  );
}

/** Adds up the JSON reports the tiers wrote in this run. */
function summariseTestReports(tiers, since) {
  const totals = { passed: 0, failed: 0, skipped: 0, files: 0 };
  for (const tier of tiers) {
    const file = join(root, 'test-results', `${tier}.json`);
    if (!existsSync(file) || statSync(file).mtimeMs < since) {
      totals.failed += 1; // a tier that wrote no report did not run to its end
      continue;
    }
    const report = JSON.parse(readFileSync(file, 'utf8'));
    if (report.stats) {
      // Playwright's JSON report: expected, unexpected, flaky and skipped tests, one top-level suite per file.
      totals.passed += report.stats.expected ?? 0;
      totals.failed += (report.stats.unexpected ?? 0) + (report.stats.flaky ?? 0) + (report.errors?.length ?? 0);
      totals.skipped += report.stats.skipped ?? 0;
      totals.files += report.suites?.length ?? 0;
      continue;
    }
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
} else if (command === 'typecheck') {
  turbo(env, ['run', 'build']);
  typecheckTests(env);
} else if (command === 'lint') {
  biome(env);
  knip(env);
  turbo(env, ['run', 'lint']);
} else if (command === 'test' || command.startsWith('test:')) {
  // `test` runs every tier in turn; `test:<tier>` one of them, with vitest's own arguments after it.
  const tiers = command === 'test' ? TIERS : [command.slice('test:'.length)];
  if (!tiers.every((tier) => TIERS.includes(tier))) {
    log(`unknown test tier ${command}; the tiers are ${TIERS.join(', ')}`);
    process.exit(2);
  }
  // Types and lint first: a change that does not type-check or lint fails the test command too. A single
  // tier only builds (the e2e and fault tiers start the services from their build output).
  turbo(env, command === 'test' ? ['run', 'build', 'lint'] : ['run', 'build']);
  if (command === 'test') {
    // Side by side: each of these is one single-threaded process (Biome excepted) on a 2-core machine.
    const checks = await sideBySide(env, [
      { name: "the tests' types", args: ['exec', 'tsc', '-p', 'tsconfig.tests.json'] },
      { name: "the bench harnesses' types", args: ['exec', 'tsc', '-p', 'bench/tsconfig.json'] },
      { name: 'knip', args: ['exec', 'knip', '--no-progress'] },
    ]);
    biome(env);
    if (!checks.every(Boolean)) process.exit(1);
  }
  const started = Date.now();
  // The fault tier mostly waits (kills, restarts, reminders coming due: about 40% of two cores over its 3.7 min), so
  // `npm test` runs it beside the others, which run in turn, on a PostgreSQL cluster of its own (its global setup);
  // after them it added its whole length to the run.
  const beside = tiers.length > 1 ? tiers.filter((tier) => tier === 'faults') : [];
  const besideRun = sideBySide(
    env,
    beside.map((tier) => tierCommand(tier, rest)),
    { held: true },
  );
  // Every tier runs even when an earlier one failed, so one red run shows everything that is red.
  const results = [];
  for (const tier of tiers.filter((t) => !beside.includes(t))) {
    results.push(...(await sideBySide(env, [tierCommand(tier, rest)])));
  }
  results.push(...(await besideRun));
  const passed = results.every(Boolean);
  const totals = summariseTestReports(tiers, started);
  console.log(
    `\nTests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped (${totals.files} files)`,
  );
  process.exit(passed && totals.failed === 0 ? 0 : 1);
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
