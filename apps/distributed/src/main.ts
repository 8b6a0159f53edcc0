#!/usr/bin/env node
// `npm run start:distributed`: the six services as separate processes behind the Envoy-file-driven gateway,
// against the PostgreSQL, NATS JetStream and Redis named by DATABASE_URL, NATS_URL and REDIS_URL.
import { startTopology } from './topology.js';

const required = ['DATABASE_URL', 'NATS_URL', 'REDIS_URL', 'ENCRYPTION_KEY', 'INTERNAL_AUTH_SECRET'];
const missing = required.filter((name) => !process.env[name]);
if (missing.length > 0) {
  process.stderr.write(
    `start:distributed needs ${missing.join(', ')} (ENCRYPTION_KEY: 32 bytes in base64; INTERNAL_AUTH_SECRET: 32+ characters)\n`,
  );
  process.exit(2);
}
const gatewayPort = Number(process.env.GATEWAY_PORT ?? 8080);
const topology = await startTopology({ env: process.env, gatewayPort, output: 'inherit' });
process.stdout.write(
  `Routinely (distributed) is listening on ${topology.gateway.url}\n${topology.replicas
    .map((r) => `  ${r.service}: http 127.0.0.1:${r.httpPort}, grpc 127.0.0.1:${r.grpcPort}, pid ${r.child?.pid}`)
    .join('\n')}\n`,
);
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void topology.close().then(() => process.exit(0));
  });
}
