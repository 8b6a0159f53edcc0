#!/usr/bin/env node
// The per-request rate-limit check alone, before against after (ADR 080 "Read path"): the
// IpRateLimiter of BEFORE_ROOT's build (default /work/main) and of this checkout, each consuming for N
// requests at 50 in flight against REDIS_URL, in one process, alternating. Prints process CPU and wall time
// per check. Not a test.
//
//   REDIS_URL=redis://127.0.0.1:6379 node bench/rate-limit-micro.mjs [N=20000] [rounds=3]
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const here = new URL('../', import.meta.url);
const beforeRoot = pathToFileURL(`${process.env.BEFORE_ROOT ?? '/work/main'}/`);
const n = Number(process.argv[2] ?? 20_000);
const rounds = Number(process.argv[3] ?? 3);
const { Redis } = createRequire(new URL('packages/platform/package.json', here))('ioredis');
const load = async (root) =>
  (await import(new URL('packages/platform/dist/http/rate-limit.js', root).href)).IpRateLimiter;
const builds = { before: await load(beforeRoot), after: await load(here) };
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { enableAutoPipelining: true });
const policy = { perMinute: 1e9, perHour: 1e9, burst: 1e9 };

async function measure(name) {
  const limiter = new builds[name](policy, redis, `bench-${process.pid}-${name}`);
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      await limiter.consume(`10.0.${next % 50}.1`);
    }
  };
  const cpu = process.cpuUsage();
  const start = performance.now();
  await Promise.all(Array.from({ length: 50 }, worker));
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { name, cpu_us: ((used.user + used.system) / n).toFixed(1), wall_us: ((wall * 1000) / n).toFixed(1) };
}

await measure('before');
await measure('after');
for (let round = 1; round <= rounds; round++) {
  for (const name of ['before', 'after']) console.log(JSON.stringify({ round, ...(await measure(name)) }));
}
await redis.quit();
