// Shared helpers of the HTTP benchmarks: a user with a token on the target, a JSON client, a bounded
// parallel map for seeding, and autocannon runs reduced to the figures we report.
import { mkdirSync, writeFileSync } from 'node:fs';
import autocannon from 'autocannon';

export const BASE_URL = (process.env.BASE_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
export const MOUNT = process.env.MOUNT ?? '/api/v1';
export const DURATION = Number(process.env.DURATION ?? process.env.BENCH_SECONDS ?? 10);
export const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);

/** A JSON client of the target for one bearer token; paths are after the mount. */
export function client(token) {
  return async (method, path, body) => {
    const res = await fetch(`${BASE_URL}${MOUNT}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!res.ok) throw new Error(`${method} ${path} -> ${res.status} ${await res.text()}`);
    return res.status === 204 ? null : res.json();
  };
}

/** Registers a fresh user (first of a new tenant, so an admin) and returns its credentials. */
export async function benchUser(label = 'bench') {
  const email = `${label}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.test`;
  const password = 'bench password 123';
  const tokens = await client()('POST', '/auth/register', {
    email,
    password,
    name: label,
    tenant_id: crypto.randomUUID(),
  });
  return { email, password, token: tokens.access_token };
}

/** The bearer token to measure with: TOKEN from the environment, else a freshly registered user's. */
export async function benchToken(label) {
  return process.env.TOKEN ?? (await benchUser(label)).token;
}

/** Runs `task` over `inputs` with at most `limit` in flight. */
export async function pool(inputs, limit, task) {
  const out = new Array(inputs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < inputs.length) {
        const i = next++;
        out[i] = await task(inputs[i], i);
      }
    }),
  );
  return out;
}

/**
 * One autocannon run. `paths` (after the mount) rotate across requests; `body` makes it a write; `url`,
 * `mount` and `duration` default to BASE_URL, MOUNT and DURATION (another target, e.g. a floor to compare with).
 * Prints and returns { title, connections, requests_per_s, p50_ms, p99_ms, non_2xx, errors }.
 */
export async function measure(
  title,
  { paths, method = 'GET', body, token, connections = CONNECTIONS, url = BASE_URL, mount = MOUNT, duration = DURATION },
) {
  let i = 0;
  const result = await autocannon({
    url,
    duration,
    connections,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    requests: [{ method, body, setupRequest: (req) => ({ ...req, path: `${mount}${paths[i++ % paths.length]}` }) }],
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
export function saveResults(name, data) {
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  const file = new URL(`./results/${name}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`, import.meta.url);
  writeFileSync(file, `${JSON.stringify({ base_url: BASE_URL, duration_s: DURATION, ...data }, null, 2)}\n`);
  console.error(`results written to ${file.pathname}`);
}
