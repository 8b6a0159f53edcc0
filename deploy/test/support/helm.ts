import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { CACHE_DIR, helmBinary } from '../../scripts/helm-binary.mjs';

/** The chart under test. */
export const CHART_DIR = fileURLToPath(new URL('../../helm/routinely/', import.meta.url));

export interface HelmResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs helm with a private home, so no user's repositories or plugins take part. */
export function helm(args: string[]): HelmResult {
  const home = join(CACHE_DIR, 'home');
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
