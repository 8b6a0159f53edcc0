import { Socket } from 'node:net';

/**
 * Runs once before a package's tests: makes DATABASE_URL, REDIS_URL and NATS_URL point at real servers.
 * Order: the environment (CI sets them), then servers answering on their standard local ports, then
 * testcontainers where a Docker engine answers. Tests never mock this infrastructure.
 */
const DEFAULTS = {
  DATABASE_URL: { url: 'postgres://postgres@127.0.0.1:5432/postgres', port: 5432 },
  REDIS_URL: { url: 'redis://127.0.0.1:6379', port: 6379 },
  NATS_URL: { url: 'nats://127.0.0.1:4222', port: 4222 },
} as const;

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
    socket.connect(port, '127.0.0.1');
  });
}

export default async function setup(): Promise<() => Promise<void>> {
  const stops: (() => Promise<unknown>)[] = [];
  for (const [name, fallback] of Object.entries(DEFAULTS)) {
    if (process.env[name]) continue;
    if (await answers(fallback.port)) {
      process.env[name] = fallback.url;
      continue;
    }
    const started = await startContainer(name as keyof typeof DEFAULTS);
    process.env[name] = started.url;
    stops.push(started.stop);
  }
  return async () => {
    for (const stop of stops) await stop();
  };
}

async function startContainer(name: keyof typeof DEFAULTS): Promise<{ url: string; stop: () => Promise<unknown> }> {
  let tc: typeof import('testcontainers');
  try {
    tc = await import('testcontainers');
  } catch {
    throw new Error(`${name} is not set and nothing answers locally; set it to a real server`);
  }
  try {
    if (name === 'DATABASE_URL') {
      const c = await new tc.GenericContainer('postgres:16-alpine')
        .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
        .withExposedPorts(5432)
        .withWaitStrategy(tc.Wait.forLogMessage(/ready to accept connections/, 2))
        .start();
      return { url: `postgres://postgres@${c.getHost()}:${c.getMappedPort(5432)}/postgres`, stop: () => c.stop() };
    }
    if (name === 'REDIS_URL') {
      const c = await new tc.GenericContainer('redis:7-alpine').withExposedPorts(6379).start();
      return { url: `redis://${c.getHost()}:${c.getMappedPort(6379)}`, stop: () => c.stop() };
    }
    const c = await new tc.GenericContainer('nats:2.10-alpine').withCommand(['-js']).withExposedPorts(4222).start();
    return { url: `nats://${c.getHost()}:${c.getMappedPort(4222)}`, stop: () => c.stop() };
  } catch (error) {
    throw new Error(`${name} is not set, nothing answers locally and no container could start: ${String(error)}`);
  }
}
