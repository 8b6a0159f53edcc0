import { randomUUID } from 'node:crypto';
import { Agent, createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type GatewayCluster, type GatewayConfig, routeFor } from './envoy-config.js';

/**
 * A stand-in for Envoy where no container engine runs: it routes exactly as the Envoy file it was given says
 * (first matching route, regex rewrite, per-route timeout and retries, round robin over the cluster's healthy
 * endpoints with active /readyz checks, panic routing below half healthy, the header overwrite, local replies
 * in the file's body format). Cluster addresses (DNS names in the file) come from the harness, as the port map
 * of the processes it started.
 */
export interface GatewayOptions {
  config: GatewayConfig;
  /** Cluster name -> the `host:port` of each replica. Every cluster of the file must be given. */
  upstreams: Record<string, string[]>;
  port?: number;
  host?: string;
}

export interface RunningGateway {
  url: string;
  /** Replace a cluster's endpoints (a replica added or moved); health starts again from "unknown". */
  setUpstreams(cluster: string, addresses: string[]): void;
  close(): Promise<void>;
}

interface Endpoint {
  address: string;
  healthy: boolean;
  failures: number;
  successes: number;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'host',
]);

export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const { config } = options;
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const pools = new Map<string, { endpoints: Endpoint[]; next: number }>();
  const setUpstreams = (cluster: string, addresses: string[]) => {
    if (!config.clusters.has(cluster)) throw new Error(`the Envoy file has no cluster ${cluster}`);
    pools.set(cluster, {
      endpoints: addresses.map((address) => ({ address, healthy: true, failures: 0, successes: 0 })),
      next: 0,
    });
  };
  for (const name of config.clusters.keys()) {
    const addresses = options.upstreams[name];
    if (!addresses?.length) throw new Error(`no upstream address for Envoy cluster ${name}`);
    setUpstreams(name, addresses);
  }
  for (const name of Object.keys(options.upstreams)) {
    if (!config.clusters.has(name)) throw new Error(`the Envoy file has no cluster ${name}`);
  }

  const timers = [...config.clusters.values()].map((cluster) => startHealthChecks(cluster));
  function startHealthChecks(cluster: GatewayCluster) {
    const check = cluster.healthCheck;
    if (!check) return undefined;
    const timer = setInterval(() => {
      for (const endpoint of pools.get(cluster.name)?.endpoints ?? []) {
        void probe(endpoint.address, check.path, check.timeoutMs).then((ok) => {
          if (ok) {
            endpoint.failures = 0;
            endpoint.successes += 1;
            if (endpoint.successes >= check.healthyThreshold) endpoint.healthy = true;
          } else {
            endpoint.successes = 0;
            endpoint.failures += 1;
            if (endpoint.failures >= check.unhealthyThreshold) endpoint.healthy = false;
          }
        });
      }
    }, check.intervalMs);
    timer.unref();
    return timer;
  }

  /** Round robin over the healthy endpoints; below half healthy Envoy routes to all of them (panic). */
  function pick(cluster: string): Endpoint | undefined {
    const pool = pools.get(cluster);
    if (!pool || pool.endpoints.length === 0) return undefined;
    const healthy = pool.endpoints.filter((e) => e.healthy);
    const candidates = healthy.length * 2 < pool.endpoints.length ? pool.endpoints : healthy;
    const chosen = candidates[pool.next % candidates.length];
    pool.next += 1;
    return chosen;
  }

  function localReply(res: ServerResponse, status: number, body: string, requestId: string) {
    if (res.headersSent) return res.destroy();
    const format = config.localReply.byStatus.get(status) ?? config.localReply.default;
    if (!format) {
      res.writeHead(status, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) });
      return res.end(body);
    }
    const json = JSON.stringify(formatJson(format.jsonFormat, { status, body, requestId }));
    res.writeHead(status, { 'content-type': format.contentType, 'content-length': Buffer.byteLength(json) });
    res.end(json);
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const requestId = String(req.headers['x-request-id'] ?? randomUUID());
    const [rawPath = '/', query] = splitOnce(req.url ?? '/', '?');
    let path = config.mergeSlashes ? rawPath.replace(/\/{2,}/g, '/') : rawPath;
    if (config.normalizePath) path = new URL(path, 'http://gateway').pathname;
    const hit = routeFor(config, path);
    // Envoy's no-route answer is an empty 404 (a local reply, so the file's format applies).
    if (!hit) return localReply(res, 404, '', requestId);
    const body = await readBody(req);
    const headers: Record<string, string | string[]> = {};
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(key)) headers[key] = value;
    }
    headers['x-request-id'] = requestId;
    headers['x-forwarded-proto'] = 'http';
    if (hit.upstreamPath !== path) headers['x-envoy-original-path'] = path;
    for (const { key, value } of config.requestHeaders) headers[key] = expand(value, req);
    const target = `${hit.upstreamPath}${query === undefined ? '' : `?${query}`}`;
    const retryOn = new Set(hit.route.retry?.on ?? []);
    const attempts = 1 + (hit.route.retry?.numRetries ?? 0);
    const deadline = Date.now() + hit.route.timeoutMs;
    for (let attempt = 1; ; attempt++) {
      const endpoint = pick(hit.route.cluster);
      if (!endpoint) return localReply(res, 503, 'no healthy upstream', requestId);
      const outcome = await forward(endpoint.address, req.method ?? 'GET', target, headers, body, deadline, res);
      if (outcome === 'done') return;
      const retriable =
        outcome === 'connect-failure'
          ? retryOn.has('connect-failure') || retryOn.has('reset-before-request')
          : outcome === 'reset-before-request' && retryOn.has('reset-before-request');
      if (retriable && attempt < attempts && Date.now() < deadline) continue;
      if (outcome === 'timeout') return localReply(res, 504, 'upstream request timeout', requestId);
      return localReply(
        res,
        503,
        `upstream connect error or disconnect/reset before headers. reset reason: ${outcome === 'connect-failure' ? 'connection failure' : 'connection termination'}`,
        requestId,
      );
    }
  }

  function forward(
    address: string,
    method: string,
    path: string,
    headers: Record<string, string | string[]>,
    body: Buffer,
    deadline: number,
    res: ServerResponse,
  ): Promise<'done' | 'connect-failure' | 'reset-before-request' | 'reset' | 'timeout'> {
    const [host = '127.0.0.1', port = '80'] = splitOnce(address, ':');
    return new Promise((resolve) => {
      let connected = false;
      const upstream = request(
        {
          host,
          port: Number(port),
          method,
          path,
          headers: { ...headers, host: address, 'content-length': body.length },
          agent,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          answer.on('end', () => resolve('done'));
          answer.on('error', () => {
            res.destroy();
            resolve('done');
          });
        },
      );
      upstream.on('socket', (socket) => {
        if (!socket.connecting) connected = true;
        else socket.once('connect', () => (connected = true));
      });
      upstream.setTimeout(Math.max(1, deadline - Date.now()), () => {
        upstream.destroy();
        resolve('timeout');
      });
      upstream.on('error', (error: NodeJS.ErrnoException) => {
        if (res.headersSent) return resolve('done');
        if (!connected || error.code === 'ECONNREFUSED') return resolve('connect-failure');
        // A pooled keep-alive connection the replica had closed (killed between two requests) fails on write
        // with a reset before any answer: Node's documented keep-alive race, Envoy's reset-before-request.
        const deadPooledConnection = upstream.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
        resolve(deadPooledConnection ? 'reset-before-request' : 'reset');
      });
      upstream.end(body);
    });
  }

  async function probe(address: string, path: string, timeoutMs: number): Promise<boolean> {
    const [host = '127.0.0.1', port = '80'] = splitOnce(address, ':');
    return new Promise((resolve) => {
      const check = request({ host, port: Number(port), path, method: 'GET', timeout: timeoutMs }, (answer) => {
        answer.resume();
        resolve(answer.statusCode === 200);
      });
      check.on('timeout', () => check.destroy());
      check.on('error', () => resolve(false));
      check.end();
    });
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  // Envoy keeps an idle client connection for an hour (no downstream idle_timeout in envoy.yaml); Node's 5 s let a
  // client reuse a connection the gateway was closing that moment ("other side closed" in an e2e run under load).
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 61_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? config.listener.port, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });

  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setUpstreams,
    close: async () => {
      for (const timer of timers) if (timer) clearInterval(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}

function splitOnce(s: string, separator: string): [string, string | undefined] {
  const at = s.indexOf(separator);
  return at < 0 ? [s, undefined] : [s.slice(0, at), s.slice(at + 1)];
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The Envoy command operators the generated file uses in headers; anything else is a literal. */
function expand(value: string, req: IncomingMessage): string {
  const peer = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
  return value.replaceAll('%DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT%', peer);
}

/** Envoy's json_format for a local reply: an operator alone in a value keeps its type (the status is a number). */
function formatJson(
  format: Record<string, unknown>,
  reply: { status: number; body: string; requestId: string },
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(format)) {
    if (typeof value !== 'string') {
      out[key] = value && typeof value === 'object' ? formatJson(value as Record<string, unknown>, reply) : value;
      continue;
    }
    if (value === '%RESPONSE_CODE%') out[key] = reply.status;
    else
      out[key] = value
        .replaceAll('%RESPONSE_CODE%', String(reply.status))
        .replaceAll('%LOCAL_REPLY_BODY%', reply.body)
        .replaceAll('%REQ(X-REQUEST-ID)%', reply.requestId);
  }
  return out;
}
