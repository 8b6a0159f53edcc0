import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONSOLE_UPSTREAM, SERVICE_NAMES } from '@routinely/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { readEnvoyConfig, routeFor } from '../src/envoy-config.js';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { freePort } from '../src/ports.js';
import { ENVOY_FILE } from '../src/topology.js';

const envoyYaml = readFileSync(ENVOY_FILE, 'utf8');

describe('the Envoy file as the gateway reads it', () => {
  it('has one cluster per service and the console, and routes both mounts, rewriting /v1 to /api/v1', () => {
    const config = readEnvoyConfig(envoyYaml);
    expect([...config.clusters.keys()].sort()).toEqual([...SERVICE_NAMES, CONSOLE_UPSTREAM].sort());
    expect(routeFor(config, '/v1/service/tasks/abc')).toMatchObject({
      route: { cluster: 'task' },
      upstreamPath: '/api/v1/service/tasks/abc',
    });
    // Capture from text is the scheduler's, inside the task service's prefix.
    expect(routeFor(config, '/v1/service/tasks/parse')).toMatchObject({
      route: { cluster: 'scheduler' },
      upstreamPath: '/api/v1/service/tasks/parse',
    });
    expect(routeFor(config, '/api/v1/service/tasks/parsed')).toMatchObject({ route: { cluster: 'task' } });
    expect(routeFor(config, '/api/v1/service/schedule')).toMatchObject({
      route: { cluster: 'scheduler' },
      upstreamPath: '/api/v1/service/schedule',
    });
    // No service owns it: the console's process answers (the API's 404 for an API path; ADR 101).
    expect(routeFor(config, '/api/v1/service/tasksx')).toMatchObject({ route: { cluster: CONSOLE_UPSTREAM } });
    expect(routeFor(config, '/calendar/week/2026-11-23')).toMatchObject({ route: { cluster: CONSOLE_UPSTREAM } });
  });

  it('refuses a route setting it does not implement, and a route to an undefined cluster', () => {
    const file = parse(envoyYaml, { maxAliasCount: -1 });
    const routes =
      file.static_resources.listeners[0].filter_chains[0].filters[0].typed_config.route_config.virtual_hosts[0].routes;
    routes[0] = { match: { prefix: '/x/' }, route: { cluster: 'auth', prefix_rewrite: '/y/' } };
    expect(() => readEnvoyConfig(stringify(file))).toThrow(/prefix_rewrite/);
    routes[0] = { match: { prefix: '/x/' }, route: { cluster: 'nowhere' } };
    expect(() => readEnvoyConfig(stringify(file))).toThrow(/cluster nowhere/);
  });
});

describe('the gateway', () => {
  const seen: { replica: string; path: string; xff: string | undefined }[] = [];
  const upstreams: Server[] = [];
  let gateway: RunningGateway;

  const upstream = async (replica: string) => {
    const server = createServer((req, res) => {
      if (req.url === '/readyz') return res.end('ok');
      seen.push({ replica, path: req.url ?? '', xff: req.headers['x-forwarded-for'] as string | undefined });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ replica }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    upstreams.push(server);
    return `127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  beforeAll(async () => {
    const a = await upstream('task-a');
    const b = await upstream('task-b');
    const dead = `127.0.0.1:${await freePort()}`;
    const c = await upstream('delivery-c');
    const others = Object.fromEntries(SERVICE_NAMES.filter((s) => s !== 'task').map((s) => [s, [dead]]));
    gateway = await startGateway({
      config: readEnvoyConfig(envoyYaml),
      upstreams: { ...others, task: [a, b], delivery: [dead, c], [CONSOLE_UPSTREAM]: [dead] },
      port: 0,
    });
  });
  afterAll(async () => {
    await gateway.close();
    for (const server of upstreams) server.close();
  });

  it('rewrites the alias mount, overwrites X-Forwarded-For with its peer, and balances over the replicas', async () => {
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${gateway.url}/v1/service/tasks?limit=${i}`, {
        headers: { 'x-forwarded-for': '203.0.113.9' },
      });
      expect(res.status).toBe(200);
    }
    expect(seen.map((s) => s.path)).toEqual([0, 1, 2, 3].map((i) => `/api/v1/service/tasks?limit=${i}`));
    expect(new Set(seen.map((s) => s.xff))).toEqual(new Set(['127.0.0.1']));
    expect(new Set(seen.map((s) => s.replica))).toEqual(new Set(['task-a', 'task-b']));
  });

  it('sends a request whose replica refused the connection to another one (the retry policy), any method', async () => {
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${gateway.url}/api/v1/service/webhooks`, { method: 'POST', body: '{}' });
      expect(res.status).toBe(200);
    }
    expect(seen.filter((s) => s.replica === 'delivery-c')).toHaveLength(4);
  });

  it("answers in the file's problem+json format: 503 for a service whose process is gone, the console's too", async () => {
    const down = await fetch(`${gateway.url}/api/v1/service/schedule`, { headers: { 'x-request-id': 'r-1' } });
    expect(down.status).toBe(503);
    expect(down.headers.get('content-type')).toBe('application/problem+json');
    const problem = await down.json();
    expect(problem).toMatchObject({ status: 503, code: 'service_unavailable', request_id: 'r-1' });
    expect(JSON.stringify(problem)).not.toMatch(/upstream|reset reason|connect error/);
    // Every path has a route now: one no service owns goes to the console (ADR 101), whose process is gone here.
    const none = await fetch(`${gateway.url}/nowhere`);
    expect(none.status).toBe(503);
    expect(await none.json()).toMatchObject({ status: 503, code: 'service_unavailable' });
  });
});
