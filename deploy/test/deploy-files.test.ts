import { readdirSync, readFileSync } from 'node:fs';
import {
  defaultGrpcAddress,
  grpcAddressVariable,
  ROUTE_TABLE,
  renderEnvoyConfig,
  SERVICE_NAMES,
  serviceForPath,
} from '@routinely/platform';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// Envoy and Helm cannot run on this machine: these tests keep their files correct by parsing them.
const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

interface EnvoyRoute {
  match: { path?: string; prefix?: string };
  route: { cluster: string; regex_rewrite?: { pattern: { regex: string }; substitution: string } };
}

/** The one virtual host's routes, as the generated envoy.yaml nests them. */
interface EnvoyConfig {
  static_resources: {
    listeners: {
      filter_chains: { filters: { typed_config: { route_config: { virtual_hosts: { routes: EnvoyRoute[] }[] } } }[] }[];
    }[];
  };
}

function envoyRoutes(config: EnvoyConfig): EnvoyRoute[] {
  const host =
    config.static_resources.listeners[0]?.filter_chains[0]?.filters[0]?.typed_config.route_config.virtual_hosts[0];
  if (!host) throw new Error('envoy.yaml has no virtual host');
  return host.routes;
}

/** Envoy takes the first route whose match fits. */
function envoyRoute(routes: EnvoyRoute[], path: string) {
  const route = routes.find((r) =>
    r.match.path ? r.match.path === path : path.startsWith(r.match.prefix ?? '\u0000'),
  );
  if (!route) return undefined;
  const rewrite = route.route.regex_rewrite;
  const upstreamPath = rewrite ? path.replace(new RegExp(rewrite.pattern.regex), rewrite.substitution) : path;
  return { cluster: route.route.cluster, upstreamPath };
}

describe('Envoy configuration', () => {
  const committed = parse(read('envoy/envoy.yaml'));

  it('is what the route table generates (run `pnpm --filter @routinely/deploy generate` after changing it)', () => {
    expect(committed).toEqual(renderEnvoyConfig());
    expect(read('helm/routinely/files/envoy.yaml')).toBe(read('envoy/envoy.yaml'));
  });

  it('routes every path of the route table to the owning service, rewriting /v1 to /api/v1', () => {
    const routes = envoyRoutes(committed);
    const samples: string[] = [];
    for (const entry of ROUTE_TABLE) {
      if (entry.root) samples.push(entry.prefix);
      else
        for (const mount of ['/api/v1', '/v1']) samples.push(`${mount}${entry.prefix}`, `${mount}${entry.prefix}/x/y`);
    }
    samples.push('/api/v1/service/admin/quotas/123', '/v1/service/admin/health', '/api/v1/service/calendar/events');
    for (const path of samples) {
      const routed = envoyRoute(routes, path);
      expect(routed?.cluster, path).toBe(serviceForPath(path));
      if (path.startsWith('/v1/')) expect(routed?.upstreamPath).toBe(`/api${path}`);
    }
    expect(envoyRoute(routes, '/api/v1/unknown')).toBeUndefined();
    expect(envoyRoute(routes, '/api/v1/service/tasksmuggled')).toBeUndefined();
  });

  it('has one cluster per service, health-checked on /readyz', () => {
    const clusters = committed.static_resources.clusters;
    expect(clusters.map((c: { name: string }) => c.name).sort()).toEqual([...SERVICE_NAMES].sort());
    for (const c of clusters) expect(c.health_checks[0].http_health_check.path).toBe('/readyz');
  });
});

describe('Helm chart', () => {
  it('has parseable Chart.yaml and values.yaml with every service', () => {
    const chart = parse(read('helm/routinely/Chart.yaml'));
    expect(chart).toMatchObject({ apiVersion: 'v2', name: 'routinely', version: '1.0.0' });
    const values = parse(read('helm/routinely/values.yaml'));
    expect(Object.keys(values.services).sort()).toEqual([...SERVICE_NAMES].sort());
    expect(values.env.WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe('false');
    for (const key of ['INTERNAL_AUTH_SECRET', 'ENCRYPTION_KEY', 'DATABASE_URL'])
      expect(values.env[key]).toBeUndefined();
  });

  it('sets every service gRPC address (the platform convention and defaults) on every Deployment', () => {
    const values = parse(read('helm/routinely/values.yaml'));
    const expected = Object.fromEntries(SERVICE_NAMES.map((s) => [grpcAddressVariable(s), defaultGrpcAddress(s)]));
    expect(values.grpcAddresses).toEqual(expected);
    for (const address of Object.values(expected)) expect(address.endsWith(`:${values.ports.grpc}`)).toBe(true);
    const template = read('helm/routinely/templates/services.yaml');
    // Inside the per-service range, so every Deployment gets all six.
    const deployment = template.slice(template.indexOf('kind: Deployment'), template.indexOf('kind: Service\n'));
    expect(deployment).toContain('{{- range $key, $value := $.Values.grpcAddresses }}');
    expect(deployment).toContain('- { name: {{ $key }}, value: {{ $value | quote }} }');
  });

  it('templates have balanced actions and blocks, and render to YAML once actions are filled', () => {
    const dir = new URL('../helm/routinely/templates/', import.meta.url);
    for (const file of readdirSync(dir)) {
      const text = readFileSync(new URL(file, dir), 'utf8');
      expect(text.split('{{').length, file).toBe(text.split('}}').length);
      const opens = (text.match(/{{-?\s*(range|if|with)\b/g) ?? []).length;
      const ends = (text.match(/{{-?\s*end\s*-?}}/g) ?? []).length;
      expect(opens, file).toBe(ends);
      // Replace every action with a scalar and drop block lines: what remains must be valid YAML documents.
      const filled = text
        .split('\n')
        .filter((line) => !/^\s*{{-?\s*(range|if|with|end|else)\b.*}}\s*$/.test(line))
        .map((line) => (/^\s*{{.*}}\s*$/.test(line) ? '' : line.replace(/{{[^}]*}}/g, 'x')))
        .join('\n');
      expect(() => parse(filled.split(/^---$/m)[1] ?? filled), file).not.toThrow();
    }
  });
});
