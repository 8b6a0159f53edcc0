#!/usr/bin/env node
// Writes a new service in the house shape (docs/service-guide.md), which packages/conventions checks:
// composition files, one resource under http/ with its routes and schemas, domain/, db/ with a <table>-sql
// module, and a schema-drift test. Usage: node scripts/new-service.mjs <name> [--root <repository>]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writePackage } from './new-package.mjs';

const pascal = (name) => name.replace(/(^|-)([a-z])/g, (_, __, c) => c.toUpperCase());
const camel = (name) => pascal(name).replace(/^./, (c) => c.toLowerCase());

/** The files of a new service `name`, path -> text. */
export function serviceFiles(name) {
  const Name = pascal(name);
  const svc = camel(name);
  const NAME = name.toUpperCase().replaceAll('-', '_');
  return {
    'src/config.ts': `import { platformConfigSchema } from '@routinely/platform';
import { z } from 'zod';

/** The ${name} service's environment; every variable has a default so the all-in-one host needs none. */
export const configSchema = platformConfigSchema.extend({
  ${NAME}_OUTBOX_POLL_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(250)
    .describe('how often the outbox relay looks for unpublished events'),
});
export type ${Name}Config = z.infer<typeof configSchema>;
`,
    'src/app.ts': `import { databaseReady } from '@routinely/db';
import { OutboxRelay } from '@routinely/events';
import { backgroundOf, type ServiceInstance } from '@routinely/platform';
import type { ServiceDeps } from '@routinely/runtime';
import type { FastifyPluginAsync } from 'fastify';
import type { ${Name}Config } from './config.js';
import { ${Name}Items } from './domain/${name}-items.js';
import { ${svc}Routes } from './http/${name}/routes.js';

export type ${Name}ServiceDeps = ServiceDeps<${Name}Config>;

/** Composition root of the ${name} service. */
export function buildService(deps: ${Name}ServiceDeps): ServiceInstance {
  const logger = deps.logger.child({ svc: '${name}' });
  const relay = new OutboxRelay({
    orm: deps.orm,
    transport: deps.transport,
    logger,
    pollMs: deps.config.${NAME}_OUTBOX_POLL_MS,
  });
  const items = new ${Name}Items(deps.orm, deps.clock);
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(${svc}Routes(items));
  };
  return {
    name: '${name}',
    routes,
    readiness: { database: () => databaseReady(deps.orm) },
    // Background parts start in this order and stop in reverse: add workers (defineWorker, also listed in
    // backgroundWorkers) and consumerSubscriptions(...) after the relay.
    ...backgroundOf([relay]),
  };
}
`,
    'src/module.ts': `import { defineServiceModule } from '@routinely/runtime';
import { buildService } from './app.js';
import { configSchema } from './config.js';
import { dbConfig } from './db/config.js';

/** How a host (the all-in-one or this service's own main) builds the ${name} service. */
export const ${svc}Module = defineServiceModule({ name: '${name}', dbConfig, configSchema, build: buildService });
`,
    'src/main.ts': `#!/usr/bin/env node
// Standalone entry of the ${name} service (distributed mode).
import { runUntilSignal } from '@routinely/runtime';
import { ${svc}Module } from './module.js';

await runUntilSignal('${name}', [${svc}Module]);
`,
    'src/index.ts': `export { buildService, type ${Name}ServiceDeps } from './app.js';
export { configSchema, type ${Name}Config } from './config.js';
export { dbConfig } from './db/config.js';
export { ${svc}Module } from './module.js';
`,
    'src/db/config.ts': `import type { ServiceDbConfig } from '@routinely/db';
import { eventEntities } from '@routinely/events';
import { ${svc}Entities } from './entities.js';

/** Add each migration written by packages/db's migration-cli here, oldest first. */
export const dbConfig: ServiceDbConfig = {
  schema: '${name.replaceAll('-', '_')}',
  entities: [...${svc}Entities, ...eventEntities],
  migrations: [],
};
`,
    'src/db/entities.ts': `import { defineEntity, p } from '@routinely/db';

export const ${Name}Item = defineEntity({
  name: '${Name}Item',
  tableName: '${name.replaceAll('-', '_')}_items',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    userId: p.uuid(),
    title: p.string().length(200),
    createdAt: p.datetime(),
  },
  indexes: [{ name: '${name.replaceAll('-', '_')}_items_owner_idx', properties: ['tenantId', 'userId'] }],
});

export const ${svc}Entities = [${Name}Item];
`,
    [`src/db/${name}-items-sql.ts`]: `import type { Sql } from '@routinely/db';

export interface ${Name}ItemRow {
  id: string;
  title: string;
  created_at: string;
}

/** The owner's items, newest first: every query is scoped by tenant and owner. */
export function listItems(sql: Sql, owner: { tenantId: string; userId: string }): Promise<${Name}ItemRow[]> {
  return sql.rows<${Name}ItemRow>(
    'select id, title, created_at from ${name.replaceAll('-', '_')}_items where tenant_id = ? and user_id = ? order by created_at desc',
    [owner.tenantId, owner.userId],
  );
}
`,
    [`src/domain/${name}-items.ts`]: `import { type Orm, Sql } from '@routinely/db';
import type { Clock } from '@routinely/platform';
import { listItems } from '../db/${name}-items-sql.js';

export interface ${Name}Item {
  id: string;
  title: string;
  createdAt: string;
}

/** The ${name} service's rules; routes and handlers call it, it never calls them. */
export class ${Name}Items {
  constructor(
    private readonly orm: Orm,
    readonly clock: Clock,
  ) {}

  async list(owner: { tenantId: string; userId: string }): Promise<${Name}Item[]> {
    const rows = await listItems(Sql.pool(this.orm), owner);
    return rows.map((row) => ({ id: row.id, title: row.title, createdAt: row.created_at }));
  }
}
`,
    [`src/http/${name}/schemas.ts`]: `import { z } from 'zod';

export const ${svc}ItemSchema = z
  .object({ id: z.uuid(), title: z.string(), created_at: z.iso.datetime() })
  .meta({ id: '${Name}Item' });
`,
    [`src/http/${name}/routes.ts`]: `import { requirePrincipal } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ${Name}Items } from '../../domain/${name}-items.js';
import { ${svc}ItemSchema } from './schemas.js';

/** /service/${name}: the caller's items. */
export function ${svc}Routes(items: ${Name}Items): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();
    r.get(
      '/service/${name}',
      {
        schema: {
          operationId: 'list${Name}Items',
          tags: ['${name}'],
          summary: "The caller's items, newest first",
          response: { 200: z.array(${svc}ItemSchema) },
        },
      },
      async (request) => {
        const principal = requirePrincipal(request);
        const list = await items.list({ tenantId: principal.tenantId, userId: principal.userId });
        return list.map((item) => ({ id: item.id, title: item.title, created_at: item.createdAt }));
      },
    );
  };
}
`,
    'test/harness.ts': `import { startServiceHarness } from '@routinely/testkit';
import { ${svc}Module } from '../src/module.js';

/** The ${name} service built from its module by the shared harness; this service's test helpers go here. */
export function startHarness(env: Record<string, string> = {}) {
  return startServiceHarness(${svc}Module, { env });
}

export type Harness = Awaited<ReturnType<typeof startHarness>>;
`,
    'test/schema.test.ts': `import { schemaDriftOnFreshDatabase } from '@routinely/testkit';
import { describe, expect, it } from 'vitest';
import { dbConfig } from '../src/db/config.js';

describe('the ${name} schema', () => {
  it('is what the migrations build (write one with packages/db migration-cli after changing entities)', async () => {
    expect(await schemaDriftOnFreshDatabase(dbConfig)).toBe('');
  });
});
`,
  };
}

/** Writes services/<name> under `root`; refuses to overwrite an existing service. */
export function writeService(name, root = '.') {
  if (!/^[a-z][a-z-]{1,30}$/.test(name)) throw new Error(`service names are lowercase words with dashes, got ${name}`);
  const dir = join(root, 'services', name);
  if (existsSync(dir)) throw new Error(`${dir} exists`);
  const workspace = (pkgs) => Object.fromEntries(pkgs.map((p) => [`@routinely/${p}`, 'workspace:*']));
  writePackage(
    dir,
    `@routinely/${name}`,
    {
      ...workspace(['db', 'events', 'platform', 'runtime']),
      fastify: '5.12.8',
      'fastify-type-provider-zod': '6.1.0',
      zod: '4.6.7',
    },
    workspace(['testkit']),
    root,
  );
  for (const [path, text] of Object.entries(serviceFiles(name))) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [name, flag, rootArg] = process.argv.slice(2);
  const dir = writeService(name ?? '', flag === '--root' ? rootArg : '.');
  // The repository's formatter lays the generated JSON and TypeScript out as every other file.
  spawnSync('biome', ['format', '--write', dir], { stdio: 'inherit' });
  console.log(`wrote ${dir}. Next: add '${name}' to SERVICE_NAMES and the route table (packages/platform/src/route-table.ts),
its module to apps' host lists, run pnpm install, build, and write the first migration with
node packages/db/dist/migration-cli.js ${dir}`);
}
