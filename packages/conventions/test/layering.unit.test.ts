import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { layeringViolations, type Violation } from '../src/layering.js';

const ROOT = new URL('../../../', import.meta.url).pathname;
const FIXTURE = new URL('./fixtures/layering/', import.meta.url).pathname;
const KNOWN = new URL('../known-violations.json', import.meta.url);

const key = (v: Violation) => `${v.rule}: ${v.from} -> ${v.to}`;

describe('the layering of the code base', () => {
  it('breaks no rule beyond the known violations, and the known ones are still there (UPDATE_KNOWN=1 rewrites the list)', async () => {
    const folders = ['services', 'packages', 'apps'].filter((f) => existsSync(`${ROOT}${f}`));
    const found = (await layeringViolations(ROOT, folders)).map(key);
    if (process.env.UPDATE_KNOWN === '1') writeFileSync(KNOWN, `${JSON.stringify(found, null, 2)}\n`);
    const known: string[] = JSON.parse(readFileSync(KNOWN, 'utf8'));
    expect(
      found.filter((v) => !known.includes(v)),
      'new violations: fix them',
    ).toEqual([]);
    expect(
      known.filter((v) => !found.includes(v)),
      'fixed: remove them from known-violations.json',
    ).toEqual([]);
  }, 120_000);

  it('catches each kind of deliberate violation', async () => {
    const found = (await layeringViolations(FIXTURE, ['services', 'packages'])).map(key);
    const cycles = found.filter((v) => v.startsWith('no-circular: packages/lib/src/'));
    expect(cycles.length).toBeGreaterThanOrEqual(1);
    // domain/ports.ts also imports adapters/port.ts as a type: allowed, so not listed.
    expect(found.filter((v) => !cycles.includes(v))).toEqual([
      'domain-not-to-outer-layers: services/demo/src/domain/rules.ts -> services/demo/src/http/routes.ts',
      'domain-uses-adapters-as-ports: services/demo/src/domain/ports.ts -> services/demo/src/adapters/client.ts',
      'http-not-to-db: services/demo/src/http/routes.ts -> services/demo/src/db/rows.ts',
      'no-cross-service-imports: services/demo/src/domain/rules.ts -> services/other/src/domain/other.ts',
      'no-fastify-in-domain: services/demo/src/domain/ports.ts -> fastify',
      'packages-not-to-services: packages/lib/src/index.ts -> services/demo/src/domain/rules.ts',
      'transports-reach-db-through-domain: services/demo/src/events/consumers.ts -> services/demo/src/db/rows.ts',
      'transports-reach-db-through-domain: services/demo/src/grpc/demo-rpc.ts -> services/demo/src/db/rows.ts',
    ]);
  }, 60_000);
});
