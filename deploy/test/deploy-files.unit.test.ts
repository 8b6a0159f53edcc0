import { readFileSync } from 'node:fs';
import {
  CONSOLE_UPSTREAM,
  ENVOY_ADMIN_PORT,
  ROUTE_TABLE,
  renderEnvoyConfig,
  SERVICE_NAMES,
  serviceForPath,
} from '@routinely/platform';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { renderEnvoyFiles } from '../scripts/envoy-files.mjs';

// Envoy cannot run on this machine: these tests keep its configuration correct by parsing it (the chart's
// rendering of it is checked with the real helm in helm-chart.unit.test.ts).
const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

interface HttpConnectionManager {
  use_remote_address: boolean;
  xff_num_trusted_hops: number | string;
  access_log: { typed_config: { log_format: { json_format: Record<string, string> } } }[];
  route_config: {
    virtual_hosts: {
      routes: EnvoyRoute[];
      request_headers_to_add: { header: { key: string; value: string }; append_action: string }[];
    }[];
  };
}

interface EnvoyRoute {
  match: { path?: string; prefix?: string };
  route: { cluster: string; regex_rewrite?: { pattern: { regex: string }; substitution: string } };
}

/** The one virtual host's routes, as the generated envoy.yaml nests them. */
interface EnvoyConfig {
  static_resources: {
    listeners: {
      filter_chains: { filters: { typed_config: HttpConnectionManager }[] }[];
    }[];
  };
}

function connectionManager(config: EnvoyConfig): HttpConnectionManager {
  const manager = config.static_resources.listeners[0]?.filter_chains[0]?.filters[0]?.typed_config;
  if (!manager) throw new Error('envoy.yaml has no HTTP connection manager');
  return manager;
}

function envoyRoutes(config: EnvoyConfig): EnvoyRoute[] {
  const host = connectionManager(config).route_config.virtual_hosts[0];
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

  it('is what the route table generates, byte for byte (run `npm run generate` after changing it)', () => {
    for (const [path, text] of Object.entries(renderEnvoyFiles())) expect(read(path), path).toBe(text);
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
    // Whatever no service owns goes to the console (ADR 101), which answers an API-shaped path with the API's 404.
    for (const path of ['/', '/home', '/calendar/week/2026-11-23', '/assets/index-B7kQ2xYz.js', '/api/v1/unknown']) {
      expect(envoyRoute(routes, path)?.cluster, path).toBe(CONSOLE_UPSTREAM);
    }
    expect(envoyRoute(routes, '/api/v1/service/tasksmuggled')?.cluster).toBe(CONSOLE_UPSTREAM);
    expect(routes.at(-1)?.match).toEqual({ prefix: '/' });
  });

  it('has one cluster per service and the console, health-checked on /readyz', () => {
    const clusters = committed.static_resources.clusters;
    expect(clusters.map((c: { name: string }) => c.name).sort()).toEqual([...SERVICE_NAMES, CONSOLE_UPSTREAM].sort());
    for (const c of clusters) expect(c.health_checks[0].http_health_check.path).toBe('/readyz');
  });

  it('hands the services the one client address it trusts (TRUST_PROXY=true reads exactly that)', () => {
    for (const hops of [0, 1, 2]) {
      const manager = connectionManager(renderEnvoyConfig({ xffNumTrustedHops: hops }) as unknown as EnvoyConfig);
      expect(manager.use_remote_address).toBe(true);
      expect(manager.xff_num_trusted_hops).toBe(hops);
      // Whatever a client wrote into X-Forwarded-For, the service sees only Envoy's verdict.
      expect(manager.route_config.virtual_hosts[0]?.request_headers_to_add).toEqual([
        {
          header: { key: 'x-forwarded-for', value: '%DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT%' },
          append_action: 'OVERWRITE_IF_EXISTS_OR_ADD',
        },
      ]);
    }
    expect(connectionManager(committed).xff_num_trusted_hops).toBe(0);
  });

  it('logs every request as JSON on stdout without the query string, and serves admin stats on its own port', () => {
    const manager = connectionManager(committed);
    const format = manager.access_log[0]?.typed_config.log_format.json_format ?? {};
    expect(format.path).toBe('%REQ_WITHOUT_QUERY(X-ENVOY-ORIGINAL-PATH?:PATH)%');
    expect(format).toMatchObject({ status: '%RESPONSE_CODE%', client: '%DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT%' });
    expect(JSON.stringify(format)).not.toMatch(/%REQ\(:PATH\)%|AUTHORIZATION|COOKIE/i);
    expect(committed.admin.address.socket_address.port_value).toBe(ENVOY_ADMIN_PORT);
  });
});
