import { readFileSync } from 'node:fs';
import {
  CONSOLE_UPSTREAM,
  defaultGrpcAddress,
  grpcAddressVariable,
  renderEnvoyConfig,
  SERVICE_NAMES,
} from '@routinely/platform';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { GRPC_PEERS } from './support/grpc-peers.js';
import { CHART_DIR, helm, type KubeObject, renderChart } from './support/helm.js';
import { schemaProblems, typeProblems } from './support/kube-schema.js';

// The real helm (4.1.4, from the npm registry) lints and renders the chart; every object it renders is
// checked against the Kubernetes API models. Nothing here needs a cluster.

const VALUE_SETS = {
  external: ['ci/external-values.yaml'],
  inCluster: ['ci/in-cluster-values.yaml'],
  everything: ['ci/everything-values.yaml'],
  kind: ['../../kind/values.yaml'],
} as const;

interface Container {
  name: string;
  command?: string[];
  env?: {
    name: string;
    value?: string;
    valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
  }[];
  securityContext?: Record<string, unknown> & { capabilities?: { drop?: string[] } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  volumeMounts?: { name: string; mountPath: string }[];
  startupProbe?: { httpGet?: { path: string; port: string } };
  readinessProbe?: { httpGet?: { path: string; port: string } };
  livenessProbe?: { httpGet?: { path: string; port: string }; tcpSocket?: unknown };
  image?: string;
  ports?: { name: string; containerPort: number }[];
}
interface PodSpec {
  automountServiceAccountToken?: boolean;
  securityContext?: { runAsNonRoot?: boolean; seccompProfile?: { type: string } };
  containers: Container[];
  initContainers?: Container[];
  volumes?: { name: string; emptyDir?: unknown }[];
}

const find = (objects: KubeObject[], kind: string, name: string) => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`);
  return found as KubeObject & { spec: Record<string, unknown> };
};
const podSpec = (object: KubeObject): PodSpec | undefined => {
  const spec = object.spec as ({ template?: { spec: PodSpec } } & PodSpec) | undefined;
  if (object.kind === 'Pod') return spec;
  return spec?.template?.spec;
};
const envOf = (container: Container) => new Map((container.env ?? []).map((e) => [e.name, e]));
const plainEnv = (container: Container) =>
  Object.fromEntries((container.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value]));
const serviceContainer = (objects: KubeObject[], fullname: string, service: string) => {
  const container = podSpec(find(objects, 'Deployment', `${fullname}-${service}`))?.containers[0];
  if (!container) throw new Error(`no container in ${service}`);
  return container;
};

describe('helm lint --strict', () => {
  it.each(Object.entries(VALUE_SETS))('passes with the %s values', (_name, files) => {
    const result = helm(['lint', '--strict', CHART_DIR, ...files.flatMap((f) => ['-f', `${CHART_DIR}${f}`])]);
    expect(result.status, result.stdout + result.stderr).toBe(0);
  });

  it('refuses values the schema does not allow (an unquoted number, an unknown migration mode)', () => {
    const base = ['lint', '--strict', CHART_DIR, '-f', `${CHART_DIR}ci/external-values.yaml`];
    const number = helm([...base, '--set', 'config.RATE_LIMIT_BURST=20']);
    expect(number.status).not.toBe(0);
    expect(number.stdout + number.stderr).toMatch(/RATE_LIMIT_BURST.*got number, want string/);
    const mode = helm([...base, '--set', 'migrations.mode=sometimes']);
    expect(mode.status).not.toBe(0);
    expect(mode.stdout + mode.stderr).toMatch(/migrations\/mode/);
  });

  it('refuses an install without NATS and Redis (six processes cannot share in-process stand-ins)', () => {
    expect(() => renderChart()).toThrow(/NATS_URL is required/);
    expect(() => renderChart({ set: { 'config.NATS_URL': 'nats://nats:4222' } })).toThrow(/REDIS_URL is required/);
  });
});

describe('rendered objects against the Kubernetes API models', () => {
  const rendered: Record<string, KubeObject[]> = {};
  beforeAll(() => {
    for (const [name, files] of Object.entries(VALUE_SETS)) rendered[name] = renderChart({ valueFiles: [...files] });
  });

  it.each(Object.keys(VALUE_SETS))('every object of the %s values is valid', async (name) => {
    const objects = rendered[name] ?? [];
    expect(objects.length).toBeGreaterThan(20);
    expect(await schemaProblems(objects)).toEqual([]);
    expect(typeProblems(objects)).toEqual([]);
  });

  it('catches a misspelt field, a field of the wrong type and a missing required field', async () => {
    const deployment = structuredClone(find(rendered.external ?? [], 'Deployment', 'routinely-auth'));
    const container = podSpec(deployment)?.containers[0] as Container & Record<string, unknown>;
    container.readinessProb = container.readinessProbe;
    expect(typeProblems([deployment]).join('\n')).toMatch(/readinessProb"?' does not exist in type 'IContainer'/);
    delete container.readinessProb;
    (deployment.spec as Record<string, unknown>).replicas = 'two';
    expect((await schemaProblems([deployment])).join('\n')).toMatch(/replicas must be integer/);
    expect(typeProblems([deployment]).join('\n')).toMatch(/Type 'string' is not assignable to type 'number'/);
    (deployment.spec as Record<string, unknown>).replicas = 2;
    delete (deployment.spec as Record<string, unknown>).selector;
    expect((await schemaProblems([deployment])).join('\n')).toMatch(/selector/);
  });
});

describe('names and labels', () => {
  it('lets two releases share a namespace: no name in common, selectors that never match the other', () => {
    const a = renderChart({ release: 'blue', valueFiles: ['ci/external-values.yaml'] });
    const b = renderChart({ release: 'green', valueFiles: ['ci/external-values.yaml'] });
    const names = (objects: KubeObject[]) => new Set(objects.map((o) => `${o.kind}/${o.metadata.name}`));
    const shared = [...names(a)].filter((n) => names(b).has(n));
    expect(shared).toEqual([]);
    for (const object of a) {
      const selector = (object.spec as { selector?: { matchLabels?: Record<string, string> } } | undefined)?.selector;
      const labels =
        selector?.matchLabels ??
        (object.kind === 'Service' ? (object.spec as { selector?: Record<string, string> }).selector : undefined);
      if (labels) expect(labels['app.kubernetes.io/instance'], `${object.kind}/${object.metadata.name}`).toBe('blue');
    }
  });

  it('puts the standard labels on every object', () => {
    for (const object of renderChart({ release: 'blue', valueFiles: ['ci/in-cluster-values.yaml'] })) {
      expect(object.metadata.labels, `${object.kind}/${object.metadata.name}`).toMatchObject({
        'app.kubernetes.io/name': 'routinely',
        'app.kubernetes.io/instance': 'blue',
        'app.kubernetes.io/managed-by': 'Helm',
        'app.kubernetes.io/part-of': 'routinely',
        'app.kubernetes.io/version': expect.any(String),
        'app.kubernetes.io/component': expect.any(String),
        'helm.sh/chart': expect.stringMatching(/^routinely-/),
      });
      expect(object.metadata.name.length).toBeLessThanOrEqual(63);
    }
  });
});

describe('pods', () => {
  it.each(Object.entries(VALUE_SETS))('run hardened with the %s values', (_name, files) => {
    for (const object of renderChart({ valueFiles: [...files] })) {
      const spec = podSpec(object);
      if (!spec) continue;
      const label = `${object.kind}/${object.metadata.name}`;
      expect(spec.automountServiceAccountToken, label).toBe(false);
      expect(spec.securityContext, label).toMatchObject({
        runAsNonRoot: true,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      for (const container of [...spec.containers, ...(spec.initContainers ?? [])]) {
        expect(container.securityContext, `${label} ${container.name}`).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
        expect(container.resources?.requests, `${label} ${container.name}`).toBeDefined();
        if (object.kind !== 'Pod') {
          const tmp = container.volumeMounts?.find((m) => m.mountPath === '/tmp');
          expect(
            spec.volumes?.find((v) => v.name === tmp?.name)?.emptyDir,
            `${label} ${container.name} /tmp`,
          ).toBeDefined();
        }
      }
    }
  });

  it('probe what the services serve: /livez to start and live, /readyz (503 while draining) to take traffic', () => {
    const objects = renderChart({ valueFiles: ['ci/external-values.yaml'] });
    for (const service of SERVICE_NAMES) {
      const container = serviceContainer(objects, 'routinely', service);
      expect(container.command).toEqual(['node', `services/${service}/dist/main.js`]);
      expect(container.startupProbe?.httpGet).toEqual({ path: '/livez', port: 'http' });
      expect(container.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' });
      expect(container.livenessProbe?.httpGet).toEqual({ path: '/livez', port: 'http' });
    }
    const health = readFileSync(new URL('../../packages/platform/src/http/health.ts', import.meta.url), 'utf8');
    expect(health).toContain("app.get('/livez'");
    expect(health).toContain("app.get('/readyz'");
  });
});

describe('services, configuration and secrets', () => {
  it('gives every service a headless Service, a PDB, and every peer gRPC address (the platform defaults for release "routinely")', () => {
    for (const [release, fullname] of [
      ['routinely', 'routinely'],
      ['blue', 'blue-routinely'],
    ] as const) {
      const objects = renderChart({ release, valueFiles: ['ci/external-values.yaml'] });
      for (const service of SERVICE_NAMES) {
        const headless = find(objects, 'Service', `${fullname}-${service}`);
        expect(headless.spec.clusterIP).toBe('None');
        expect((headless.spec.ports as { name: string }[]).map((p) => p.name)).toEqual(['http', 'grpc']);
        find(objects, 'PodDisruptionBudget', `${fullname}-${service}`);
        const env = plainEnv(serviceContainer(objects, fullname, service));
        expect(env).toMatchObject({ GRPC_HOST: '0.0.0.0', GRPC_PORT: '50051', PORT: '8080', TRUST_PROXY: 'true' });
        for (const peer of GRPC_PEERS) {
          const address = env[grpcAddressVariable(peer)];
          expect(address).toBe(`${fullname}-${peer}:50051`);
          if (release === 'routinely') expect(address).toBe(defaultGrpcAddress(peer));
        }
        expect(env).not.toHaveProperty(grpcAddressVariable('scheduler'));
      }
    }
  });

  it('reads every credential from the existing Secret by reference, never as a value', () => {
    const objects = renderChart({ valueFiles: ['ci/external-values.yaml'] });
    const secretNames = /(^DATABASE_URL|_KEY|_SECRET|^SMTP_URL|_HEADERS)$/;
    for (const service of SERVICE_NAMES) {
      const container = serviceContainer(objects, 'routinely', service);
      for (const entry of container.env ?? []) {
        if (secretNames.test(entry.name)) {
          expect(entry.value, `${service} ${entry.name}`).toBeUndefined();
          expect(entry.valueFrom?.secretKeyRef?.name).toBe('routinely-secrets');
        }
      }
      for (const required of ['DATABASE_URL', 'ENCRYPTION_KEY', 'INTERNAL_AUTH_SECRET']) {
        expect(envOf(container).get(required)?.valueFrom?.secretKeyRef).toEqual({
          name: 'routinely-secrets',
          key: required,
        });
      }
    }
    const scheduler = envOf(serviceContainer(objects, 'routinely', 'scheduler'));
    expect(scheduler.get('OPENAI_API_KEY')?.valueFrom?.secretKeyRef).toMatchObject({
      key: 'OPENAI_API_KEY',
      optional: true,
    });
    // Only the service that needs a provider key gets it.
    expect(envOf(serviceContainer(objects, 'routinely', 'task')).has('OPENAI_API_KEY')).toBe(false);
  });

  it('passes every variable of the configuration reference through values (a new variable is one line in config or services.<svc>.env)', () => {
    const values = parse(readFileSync(`${CHART_DIR}values.yaml`, 'utf8'));
    const inValues = new Set<string>([
      ...Object.keys(values.config),
      ...Object.keys(values.secrets.shared),
      ...Object.keys(values.secrets.optional),
      ...Object.values(values.services as Record<string, { env?: object; secretEnv?: object }>).flatMap((s) => [
        ...Object.keys(s.env ?? {}),
        ...Object.keys(s.secretEnv ?? {}),
      ]),
    ]);
    // Set by the chart itself, or meaningful only to the all-in-one.
    const wired = [
      'PORT',
      'HOST',
      'GRPC_PORT',
      'GRPC_HOST',
      'OTEL_SERVICE_NAME',
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'MIGRATE_ON_START',
    ];
    // Meaningful only to the all-in-one, or to test hosts sharing servers; the console's folder is console.dir.
    const allInOneOnly = ['DATA_DIR', 'EMBEDDED_PG_PORT', 'INFRA_NAMESPACE', 'CONSOLE_DIR'];
    const variables = referenceVariables();
    expect(variables).toContain('DATABASE_URL');
    const missing = variables.filter(
      (name) =>
        !inValues.has(name) && !wired.includes(name) && !allInOneOnly.includes(name) && !name.endsWith('_GRPC_ADDRESS'),
    );
    expect(missing).toEqual([]);
  });

  it('lets a service override or unset a shared variable, and never repeats a name', () => {
    const objects = renderChart({
      valueFiles: ['ci/external-values.yaml'],
      set: { 'services.task.env.LOG_LEVEL': 'debug', 'services.calendar.env.RATE_LIMIT_BURST': '' },
    });
    expect(plainEnv(serviceContainer(objects, 'routinely', 'task')).LOG_LEVEL).toBe('debug');
    expect(plainEnv(serviceContainer(objects, 'routinely', 'auth')).LOG_LEVEL).toBe('info');
    expect(plainEnv(serviceContainer(objects, 'routinely', 'calendar')).RATE_LIMIT_BURST).toBeUndefined();
    for (const service of SERVICE_NAMES) {
      const names = (serviceContainer(objects, 'routinely', service).env ?? []).map((e) => e.name);
      expect(new Set(names).size).toBe(names.length);
    }
  });
});

/** Every variable of the generated configuration reference (docs/configuration.md, first column). */
function referenceVariables(): string[] {
  const reference = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
  return [...reference.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1] ?? '').sort();
}

describe('migrations never race', () => {
  const env = (container: Container) => plainEnv(container).MIGRATE_ON_START;

  it('run in a pre-install/pre-upgrade hook Job with external PostgreSQL; services only check', () => {
    const objects = renderChart({ valueFiles: ['ci/external-values.yaml'] });
    const job = find(objects, 'Job', 'routinely-migrate');
    expect(job.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    const container = podSpec(job)?.containers[0];
    expect(container?.command).toEqual(['node', 'apps/all-in-one/dist/migrate.js']);
    expect(envOf(container as Container).get('DATABASE_URL')?.valueFrom?.secretKeyRef?.key).toBe('DATABASE_URL');
    for (const service of SERVICE_NAMES) {
      expect(env(serviceContainer(objects, 'routinely', service))).toBe('false');
      expect(podSpec(find(objects, 'Deployment', `routinely-${service}`))?.initContainers).toBeUndefined();
    }
  });

  it('run in each pod’s init container with the in-cluster PostgreSQL (a hook would run before it exists)', () => {
    const objects = renderChart({ valueFiles: ['ci/in-cluster-values.yaml'] });
    expect(objects.some((o) => o.kind === 'Job')).toBe(false);
    for (const service of SERVICE_NAMES) {
      const spec = podSpec(find(objects, 'Deployment', `routinely-${service}`));
      expect(spec?.initContainers?.[0]?.command).toEqual(['node', 'apps/all-in-one/dist/migrate.js', service]);
      expect(env(spec?.containers[0] as Container)).toBe('false');
    }
    expect(plainEnv(serviceContainer(objects, 'routinely', 'task'))).toMatchObject({
      NATS_URL: 'nats://routinely-nats:4222',
      REDIS_URL: 'redis://routinely-redis:6379',
    });
    for (const dep of ['postgresql', 'nats', 'redis']) find(objects, 'Service', `routinely-${dep}`);
  });

  it('or at start-up, where the per-schema lock keeps replicas apart', () => {
    const objects = renderChart({ valueFiles: ['ci/everything-values.yaml'] });
    expect(objects.some((o) => o.kind === 'Job')).toBe(false);
    expect(env(serviceContainer(objects, 'routinely', 'auth'))).toBe('true');
  });
});

describe('Envoy in the chart', () => {
  it('is the route table’s configuration with the release’s headless Services and trusted hops', () => {
    for (const [release, fullname, hops] of [
      ['routinely', 'routinely', 0],
      ['blue', 'blue-routinely', 2],
    ] as const) {
      const objects = renderChart({
        release,
        valueFiles: ['ci/external-values.yaml'],
        values: { 'envoy.xffNumTrustedHops': String(hops) },
      });
      const config = parse(
        (find(objects, 'ConfigMap', `${fullname}-envoy`).data as { 'envoy.yaml': string })['envoy.yaml'],
      );
      expect(config).toEqual(renderEnvoyConfig({ upstreamHost: (s) => `${fullname}-${s}`, xffNumTrustedHops: hops }));
      for (const service of SERVICE_NAMES)
        expect(find(objects, 'Service', `${fullname}-${service}`).spec.clusterIP).toBe('None');
    }
  });

  it('sends every path no service owns to the console process of the same image (ADR 101)', () => {
    const objects = renderChart({ release: 'blue', valueFiles: ['ci/external-values.yaml'] });
    const config = parse(
      (find(objects, 'ConfigMap', 'blue-routinely-envoy').data as { 'envoy.yaml': string })['envoy.yaml'],
    );
    const routes = config.static_resources.listeners[0].filter_chains[0].filters[0].typed_config.route_config
      .virtual_hosts[0].routes as { match: { prefix?: string }; route: { cluster: string } }[];
    expect(routes.at(-1)).toMatchObject({ match: { prefix: '/' }, route: { cluster: CONSOLE_UPSTREAM } });
    const cluster = (config.static_resources.clusters as { name: string; load_assignment: unknown }[]).find(
      (c) => c.name === CONSOLE_UPSTREAM,
    );
    expect(JSON.stringify(cluster?.load_assignment)).toContain('"address":"blue-routinely-console"');
    expect(find(objects, 'Service', 'blue-routinely-console').spec.clusterIP).toBe('None');
    const deployment = find(objects, 'Deployment', 'blue-routinely-console');
    const container = podSpec(deployment)?.containers[0] as Container;
    expect(container.image).toBe(serviceContainer(objects, 'blue-routinely', 'auth').image);
    expect(container.command).toEqual(['node', 'apps/all-in-one/dist/console.js']);
    expect(container.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' });
    // No database, no secret: nothing of the Secret reaches the console.
    expect((container.env ?? []).every((e) => e.valueFrom === undefined)).toBe(true);
    expect(plainEnv(container)).toMatchObject({ PORT: '8080', NODE_ENV: 'production' });
    find(objects, 'PodDisruptionBudget', 'blue-routinely-console');
    const policy = find(objects, 'NetworkPolicy', 'blue-routinely-console');
    expect(JSON.stringify(policy.spec)).toContain('"app.kubernetes.io/component":"envoy"');
  });

  it('runs a pinned image with probes on its admin port, resources, and admin kept off the public Service', () => {
    const objects = renderChart({ valueFiles: ['ci/external-values.yaml'] });
    const container = podSpec(find(objects, 'Deployment', 'routinely-envoy'))?.containers[0] as Container;
    expect(container.image).toMatch(/^envoyproxy\/envoy:v\d+\.\d+\.\d+$/);
    expect(container.readinessProbe?.httpGet).toEqual({ path: '/ready', port: 'admin' });
    expect(container.startupProbe?.httpGet).toEqual({ path: '/ready', port: 'admin' });
    expect(container.livenessProbe).toBeDefined();
    expect(container.resources?.limits?.memory).toBeDefined();
    const gateway = find(objects, 'Service', 'routinely-gateway');
    expect((gateway.spec.ports as { targetPort: string }[]).map((p) => p.targetPort)).toEqual(['http']);
    expect(find(objects, 'Service', 'routinely-envoy-admin').spec.type).toBe('ClusterIP');
  });
});

describe('network policies', () => {
  it('let only Envoy (and the monitoring namespace) reach HTTP, only the services reach gRPC', () => {
    const objects = renderChart({ release: 'blue', valueFiles: ['ci/external-values.yaml'] });
    const policy = find(objects, 'NetworkPolicy', 'blue-routinely-services');
    const ingress = policy.spec.ingress as {
      from: {
        podSelector?: { matchLabels: Record<string, string>; matchExpressions?: { values: string[] }[] };
        namespaceSelector?: { matchLabels: Record<string, string> };
      }[];
      ports: { port: string }[];
    }[];
    expect(ingress.map((rule) => rule.ports.map((p) => p.port))).toEqual([['http'], ['grpc']]);
    const [http, grpc] = ingress;
    expect(http?.from[0]?.podSelector?.matchLabels).toEqual({
      'app.kubernetes.io/name': 'routinely',
      'app.kubernetes.io/instance': 'blue',
      'app.kubernetes.io/component': 'envoy',
    });
    expect(http?.from[1]?.namespaceSelector?.matchLabels).toEqual({ 'kubernetes.io/metadata.name': 'monitoring' });
    expect(grpc?.from).toHaveLength(1);
    expect(grpc?.from[0]?.podSelector?.matchLabels['app.kubernetes.io/instance']).toBe('blue');
    expect(grpc?.from[0]?.podSelector?.matchExpressions?.[0]?.values).toEqual([...SERVICE_NAMES]);
  });
});

describe('optional parts', () => {
  it('scale with an HPA instead of a fixed replica count, and export ServiceMonitors', () => {
    const objects = renderChart({ valueFiles: ['ci/everything-values.yaml'] });
    const scaled = SERVICE_NAMES.filter((s) => s !== 'integration');
    for (const service of scaled) {
      find(objects, 'HorizontalPodAutoscaler', `routinely-${service}`);
      expect(find(objects, 'Deployment', `routinely-${service}`).spec.replicas).toBeUndefined();
    }
    // A per-service false beats the default true.
    expect(
      objects.some((o) => o.kind === 'HorizontalPodAutoscaler' && o.metadata.name === 'routinely-integration'),
    ).toBe(false);
    expect(objects.some((o) => o.kind === 'PodDisruptionBudget' && o.metadata.name === 'routinely-integration')).toBe(
      false,
    );
    expect(find(objects, 'ServiceMonitor', 'routinely-services').metadata.labels?.release).toBe('prometheus');
    expect(serviceContainer(objects, 'routinely', 'auth').image).toMatch(/^registry\.example\.com\/routinely@sha256:/);
  });
});
