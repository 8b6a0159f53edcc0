// Shared helpers of the HTTP benchmarks: a user with a token on the target, a JSON client, a bounded
// parallel map for seeding, and autocannon runs reduced to the figures we report.
import { mkdirSync, writeFileSync } from 'node:fs';
import autocannon from 'autocannon';

export const DURATION = Number(process.env.DURATION ?? process.env.BENCH_SECONDS ?? 10);
export const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);
export const MOUNT = process.env.MOUNT ?? '/api/v1';
/** The target when a harness is given none: BASE_URL, else a local `npm start`. */
export const baseUrl = (): string => (process.env.BASE_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');

export type Api = <T = Json>(method: string, path: string, body?: unknown) => Promise<T>;
// biome-ignore lint/suspicious/noExplicitAny: answers are read by field name, as the harnesses print them
export type Json = any;

/** A JSON client of `target` for one bearer token; paths are after the mount. */
export function client(token?: string, target = baseUrl()): Api {
  return async (method, path, body) => {
    const res = await fetch(`${target}${MOUNT}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : null,
    });
    if (!res.ok) throw new Error(`${method} ${path} -> ${res.status} ${await res.text()}`);
    return (res.status === 204 ? null : await res.json()) as never;
  };
}

export interface BenchUser {
  email: string;
  password: string;
  token: string;
}

/** Registers a fresh user (first of a new tenant, so an admin) on `target` and returns its credentials. */
export async function benchUser(label = 'bench', target = baseUrl()): Promise<BenchUser> {
  const email = `${label}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.test`;
  const password = 'bench password 123';
  const tokens = await client(undefined, target)('POST', '/auth/register', {
    email,
    password,
    name: label,
    tenant_id: crypto.randomUUID(),
  });
  return { email, password, token: tokens.access_token };
}

/** The bearer token to measure with: TOKEN from the environment, else a freshly registered user's. */
export async function benchToken(label: string): Promise<string> {
  return process.env.TOKEN ?? (await benchUser(label)).token;
}

/** Runs `task` over `inputs` with at most `limit` in flight. */
export async function pool<I, O>(inputs: I[], limit: number, task: (input: I, index: number) => Promise<O>) {
  const out = new Array<O>(inputs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < inputs.length) {
        const i = next++;
        out[i] = await task(inputs[i] as I, i);
      }
    }),
  );
  return out;
}

export interface MeasureOptions {
  /** After the mount; they rotate across requests. */
  paths: string[];
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Makes it a write. */
  body?: string;
  token?: string;
  connections?: number;
  url?: string;
  mount?: string;
  duration?: number;
}

export interface Row {
  title: string;
  connections: number;
  requests_per_s: number;
  p50_ms: number;
  p99_ms: number;
  non_2xx: number;
  errors: number;
}

/** One autocannon run; `url`, `mount` and `duration` default to BASE_URL, MOUNT and DURATION. Prints the row. */
export async function measure(title: string, options: MeasureOptions): Promise<Row> {
  const { paths, method = 'GET', body, token, connections = CONNECTIONS } = options;
  const mount = options.mount ?? MOUNT;
  let i = 0;
  const result = await autocannon({
    url: options.url ?? baseUrl(),
    duration: options.duration ?? DURATION,
    connections,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    requests: [
      {
        method,
        ...(body ? { body } : {}),
        setupRequest: (req) => ({ ...req, path: `${mount}${paths[i++ % paths.length]}` }),
      },
    ],
  });
  const row = {
    title,
    connections,
    requests_per_s: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    non_2xx: result.non2xx,
    errors: result.errors,
  };
  console.log(JSON.stringify(row));
  if (row.non_2xx > 0) console.warn(`${title}: ${row.non_2xx} answers were not 2xx (rate limit?): not a valid figure`);
  return row;
}

/** Writes bench/results/<name>-<time>.json (git-ignored). */
export function saveResults(name: string, data: Record<string, unknown>): void {
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  const file = new URL(`./results/${name}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`, import.meta.url);
  writeFileSync(file, `${JSON.stringify({ duration_s: DURATION, ...data }, null, 2)}\n`);
  console.error(`results written to ${file.pathname}`);
}
