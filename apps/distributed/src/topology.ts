import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  CONSOLE_UPSTREAM,
  grpcAddressVariable,
  SERVICE_NAMES,
  type ServiceName,
  type UpstreamName,
} from '@routinely/platform';
import { readEnvoyConfig } from './envoy-config.js';
import { type RunningGateway, startGateway } from './gateway.js';
import { freePort } from './ports.js';

/**
 * The six services as separate processes, each started from its own entry point (`services/<svc>/dist/main.js`)
 * on its own HTTP and gRPC ports and wired only by the `<SVC>_GRPC_ADDRESS` variables the Helm chart sets, and
 * the web console's process (`apps/all-in-one/dist/console.js`, ADR 101), with the Envoy-file-driven gateway in
 * front. PostgreSQL, NATS and Redis come from the URLs in `env`; CONSOLE_DIR there says which console is served.
 */
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
export const ENVOY_FILE = `${repoRoot}deploy/envoy/envoy.yaml`;
/** The services whose gRPC address every process is given, as the chart wires them: the scheduler serves no gRPC (ADR 056). */
const GRPC_PEERS = SERVICE_NAMES.filter((service) => service !== 'scheduler');

export const entryPoint = (upstream: UpstreamName) =>
  upstream === CONSOLE_UPSTREAM
    ? `${repoRoot}apps/all-in-one/dist/console.js`
    : `${repoRoot}services/${upstream}/dist/main.js`;

export interface TopologyOptions {
  /** Shared by every process: DATABASE_URL, NATS_URL, REDIS_URL, ENCRYPTION_KEY, INTERNAL_AUTH_SECRET, ... */
  env: Record<string, string | undefined>;
  /** Variables of one service only (the chart's `services.<svc>.env`). */
  serviceEnv?: Partial<Record<ServiceName, Record<string, string>>>;
  /** Replicas per service (default 1); gRPC callers balance over them (an `ipv4:` list of their addresses). */
  replicas?: Partial<Record<ServiceName, number>>;
  envoyFile?: string;
  /** The gateway's port; 0 (the default) picks a free one. */
  gatewayPort?: number;
  /** Where a process's output goes: inherited (a person watching) or kept for a failing test to show. */
  output?: 'inherit' | 'buffer';
}

export interface Replica {
  service: UpstreamName;
  index: number;
  httpPort: number;
  grpcPort: number;
  child: ChildProcess | undefined;
  /** The last lines the process wrote (output 'buffer'). */
  log: string[];
}

export interface Topology {
  gateway: RunningGateway;
  replicas: Replica[];
  replica(service: UpstreamName, index?: number): Replica;
  /** SIGKILL (a crash) or SIGTERM (a graceful stop, as Kubernetes does), resolving once the process exited. */
  stop(replica: Replica, signal?: 'SIGKILL' | 'SIGTERM'): Promise<void>;
  /** Starts the replica again on its ports and resolves once /readyz answers 200. */
  start(replica: Replica): Promise<void>;
  close(): Promise<void>;
}

export async function startTopology(options: TopologyOptions): Promise<Topology> {
  const config = readEnvoyConfig(readFileSync(options.envoyFile ?? ENVOY_FILE, 'utf8'));
  const replicas: Replica[] = [];
  for (const service of SERVICE_NAMES) {
    for (let index = 0; index < (options.replicas?.[service] ?? 1); index++) {
      replicas.push({
        service,
        index,
        httpPort: await freePort(),
        grpcPort: await freePort(),
        child: undefined,
        log: [],
      });
    }
  }
  // The console process serves files only: one is enough, and its gRPC port is never opened.
  replicas.push({
    service: CONSOLE_UPSTREAM,
    index: 0,
    httpPort: await freePort(),
    grpcPort: 0,
    child: undefined,
    log: [],
  });
  const grpcAddresses = Object.fromEntries(
    GRPC_PEERS.map((service) => {
      const ports = replicas.filter((r) => r.service === service).map((r) => `127.0.0.1:${r.grpcPort}`);
      return [grpcAddressVariable(service), ports.length === 1 ? ports[0] : `ipv4:${ports.join(',')}`];
    }),
  );
  const envOf = (r: Replica): NodeJS.ProcessEnv => ({
    ...process.env,
    ...options.env,
    ...grpcAddresses,
    ...(r.service === CONSOLE_UPSTREAM ? {} : options.serviceEnv?.[r.service]),
    HOST: '127.0.0.1',
    PORT: String(r.httpPort),
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: String(r.grpcPort),
  });

  function spawnReplica(r: Replica) {
    const child = spawn(process.execPath, [entryPoint(r.service)], {
      env: envOf(r),
      stdio: [
        'ignore',
        options.output === 'inherit' ? 'inherit' : 'pipe',
        options.output === 'inherit' ? 'inherit' : 'pipe',
      ],
    });
    r.log = [];
    const keep = (chunk: Buffer) => {
      r.log.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      if (r.log.length > 200) r.log.splice(0, r.log.length - 200);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    r.child = child;
  }
  // A test runner that exits without closing the topology (a failed hook, a timeout) leaves no process behind.
  const killAll = () => {
    for (const r of replicas) r.child?.kill('SIGKILL');
  };
  process.once('exit', killAll);

  async function waitReady(r: Replica) {
    const until = Date.now() + 120_000;
    while (Date.now() < until) {
      if (r.child?.exitCode !== null && r.child?.exitCode !== undefined) {
        throw new Error(`${r.service}#${r.index} exited with ${r.child.exitCode}:\n${r.log.slice(-30).join('\n')}`);
      }
      const ok = await fetch(`http://127.0.0.1:${r.httpPort}/readyz`).then(
        (res) => res.status === 200,
        () => false,
      );
      if (ok) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`${r.service}#${r.index} was not ready within 2 minutes:\n${r.log.slice(-30).join('\n')}`);
  }

  async function stop(r: Replica, signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL') {
    const child = r.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  }

  async function start(r: Replica) {
    spawnReplica(r);
    await waitReady(r);
  }

  let gateway: RunningGateway | undefined;
  try {
    // Every service migrates its own schema under its own lock, so all six start at once.
    await Promise.all(replicas.map((r) => start(r)));
    const upstreams: Record<string, string[]> = {};
    for (const r of replicas) upstreams[r.service] = [...(upstreams[r.service] ?? []), `127.0.0.1:${r.httpPort}`];
    gateway = await startGateway({ config, upstreams, port: options.gatewayPort ?? 0 });
  } catch (error) {
    await Promise.all(replicas.map((r) => stop(r)));
    throw error;
  }
  const running = gateway;
  return {
    gateway: running,
    replicas,
    replica: (service, index = 0) => {
      const found = replicas.find((r) => r.service === service && r.index === index);
      if (!found) throw new Error(`no replica ${service}#${index}`);
      return found;
    },
    stop,
    start,
    close: async () => {
      process.off('exit', killAll);
      await running.close();
      await Promise.all(replicas.map((r) => stop(r, 'SIGTERM')));
    },
  };
}
