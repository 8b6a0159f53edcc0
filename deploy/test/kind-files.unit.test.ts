import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { SERVICE_NAMES } from '@routinely/platform';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// Docker and kind are not on this machine: the image build, the kind script and the workflow are checked
// for what can be checked without them. The kind values themselves are rendered and validated with the
// other value sets in helm-chart.unit.test.ts.
const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const instructions = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => /^[A-Z]+\s/.test(line));

  it('copies only sources that exist in the build context (and .dockerignore does not drop)', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .filter((line) => line && !line.startsWith('#'));
    const copies = instructions.filter((line) => line.startsWith('COPY ') && !line.includes('--from='));
    expect(copies.length).toBeGreaterThan(0);
    for (const line of copies) {
      const sources = line.split(/\s+/).slice(1, -1);
      for (const source of sources) {
        expect(existsSync(new URL(source, root)), source).toBe(true);
        expect(ignored, source).not.toContain(source);
      }
    }
    for (const heavy of ['**/node_modules', '**/dist', '.toolchain', '.data', '.git']) expect(ignored).toContain(heavy);
  });

  it('builds on the Node and pnpm the repository pins, and runs as the chart’s non-root user', () => {
    const node = /const NODE_VERSION = '([^']+)'/.exec(read('scripts/toolchain.mjs'))?.[1];
    const pnpm = JSON.parse(read('package.json')).packageManager.replace('pnpm@', '');
    expect(dockerfile).toContain(`ARG NODE_VERSION=${node}`);
    expect(dockerfile).toContain(`ARG PNPM_VERSION=${pnpm}`);
    expect(instructions.filter((l) => l.startsWith('FROM ')).length).toBeGreaterThanOrEqual(2);
    const values = parse(read('deploy/helm/routinely/values.yaml'));
    const user = instructions.filter((l) => l.startsWith('USER ')).at(-1);
    expect(user).toBe(`USER ${values.podSecurityContext.runAsUser}:${values.podSecurityContext.runAsGroup}`);
    expect(dockerfile).toMatch(/pnpm install --prod --frozen-lockfile --offline/);
  });

  it('contains every entry point the chart runs', () => {
    for (const service of SERVICE_NAMES)
      expect(existsSync(new URL(`services/${service}/src/main.ts`, root))).toBe(true);
    expect(existsSync(new URL('apps/all-in-one/src/migrate.ts', root))).toBe(true);
    const chart =
      read('deploy/helm/routinely/templates/services.yaml') + read('deploy/helm/routinely/templates/migrate-job.yaml');
    expect(chart).toContain('"services/{{ $name }}/dist/main.js"');
    expect(chart).toContain('"apps/all-in-one/dist/migrate.js"');
  });
});

describe('deploy/kind/e2e.sh', () => {
  const script = read('deploy/kind/e2e.sh');

  it('is valid bash', () => {
    const result = spawnSync('bash', ['-n', new URL('deploy/kind/e2e.sh', root).pathname], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
  });

  it('builds, loads into kind, installs the chart with the kind values, tests, and runs test-e2e at Envoy', () => {
    const steps = [
      'docker build --tag "$IMAGE" "$ROOT"',
      'kind load docker-image "$IMAGE" --name "$CLUSTER"',
      '"$HELM" upgrade --install "$RELEASE" "$CHART"',
      '"$HELM" test "$RELEASE"',
      'port-forward "svc/$FULLNAME-gateway"',
      'E2E_BASE_URL="http://127.0.0.1:$LOCAL_PORT"',
    ];
    let at = 0;
    for (const step of steps) {
      const found = script.indexOf(step, at);
      expect(found, step).toBeGreaterThan(at);
      at = found;
    }
    expect(script).toContain('VALUES="$ROOT/deploy/kind/values.yaml"');
    // The Secret's DATABASE_URL names the chart's in-cluster PostgreSQL Service.
    expect(script).toContain('@$FULLNAME-postgresql:5432/');
    expect(read('deploy/helm/routinely/templates/in-cluster.yaml')).toContain('name: {{ $fullname }}-{{ $dep.name }}');
  });

  it('selects the end-to-end files the local run serves from the distributed topology', () => {
    const select = /mapfile -t files < <\((.*)\)\n/.exec(script)?.[1] ?? '';
    const run = (command: string) =>
      spawnSync('bash', ['-c', command], { cwd: new URL('test-e2e/', root), encoding: 'utf8' }).stdout.trim();
    const files = run(select).split('\n');
    // The local run: every file whose target comes from startTarget (the gateway), none that starts its own.
    const distributed = run('grep -l "startTarget" test/*.e2e.test.ts')
      .split('\n')
      .filter((file) => !read(`test-e2e/${file}`).includes('startLocalAllInOne'));
    expect(files).toEqual(distributed);
    expect(files).toContain('test/tasks.e2e.test.ts');
    expect(files).toContain('test/reminders.e2e.test.ts');
    expect(script).toContain('export WEBHOOK_RECEIVER_HOST');
    const values = parse(read('deploy/kind/values.yaml'));
    expect(values.services.delivery.env.WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe('true');
  });
});

describe('.github/workflows/kind-e2e.yml', () => {
  it('creates a kind cluster, builds, and runs the script, nothing else', () => {
    const workflow = parse(read('.github/workflows/kind-e2e.yml'));
    const steps = workflow.jobs['kind-e2e'].steps as {
      uses?: string;
      run?: string;
      with?: Record<string, string>;
      env?: Record<string, string>;
    }[];
    const kind = steps.find((s) => s.uses?.startsWith('helm/kind-action@'));
    const script = steps.find((s) => s.run === 'bash deploy/kind/e2e.sh');
    expect(kind?.with?.cluster_name).toBe(script?.env?.KIND_CLUSTER);
    expect(steps.some((s) => s.run === 'npm run build')).toBe(true);
    expect(steps.indexOf(script as never)).toBe(steps.length - 1);
  });
});

describe('.github/workflows/ci.yml', () => {
  it('gives the runner the servers and then runs .ci/run as its last step', () => {
    const workflow = parse(read('.github/workflows/ci.yml'));
    const steps = workflow.jobs.test.steps as { run?: string }[];
    const servers = steps.find((s) => s.run?.includes('nats-server'))?.run ?? '';
    for (const server of ['redis-server', 'postgresql', '-js']) expect(servers).toContain(server);
    expect(steps.at(-1)?.run).toMatch(/\.ci\/run$/);
  });
});
