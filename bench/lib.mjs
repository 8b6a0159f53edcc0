// Shared helpers of the HTTP benchmarks: a user with a token on the target, and autocannon runs reduced
// to the figures we report (requests/s, p50, p99, errors).
import autocannon from 'autocannon';

export const BASE_URL = process.env.BASE_URL ?? 'http://127.0.0.1:8080';
export const DURATION = Number(process.env.BENCH_SECONDS ?? 10);

export async function api(method, path, { token, body } = {}) {
  const response = await fetch(`${BASE_URL}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  if (response.status >= 400) throw new Error(`${method} ${path} -> ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Registers a fresh user (first of a new tenant, so an admin) and returns its tokens. */
export async function benchUser(label = 'bench') {
  const email = `${label}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.test`;
  const password = 'bench password 123';
  const tenant = crypto.randomUUID();
  const tokens = await api('POST', '/api/v1/auth/register', { body: { email, password, name: label, tenant_id: tenant } });
  return { email, password, token: tokens.access_token };
}

export async function measure(title, options) {
  const result = await autocannon({ url: BASE_URL, duration: DURATION, connections: 50, ...options });
  const row = {
    title,
    connections: options.connections ?? 50,
    requests_per_s: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    non_2xx: result.non2xx,
    errors: result.errors,
  };
  console.log(JSON.stringify(row));
  return row;
}
