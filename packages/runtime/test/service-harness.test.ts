import { eventEntities, InProcessTransport } from '@routinely/events';
import {
  AppError,
  buildOpenApiDocument,
  platformConfigSchema,
  requirePrincipal,
  type ServiceInstance,
} from '@routinely/platform';
import { runRouteGuards, sqlRows, startServiceHarness, tokenGuardTarget } from '@routinely/testkit';
import type { FastifyPluginAsync } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineServiceModule, type ServiceDeps } from '../src/index.js';

const configSchema = platformConfigSchema.extend({ PROBE_GREETING: z.string().default('hello') });
type ProbeDeps = ServiceDeps<z.infer<typeof configSchema>> & { notes?: Map<string, string> };

/** What the probe's routes use while answering. */
interface ProbeApi {
  notes: Map<string, string>;
  config: z.infer<typeof configSchema>;
}

/** One owned resource per tenant, guarded by a permission. */
function probeRoutes({ notes, config }: ProbeApi): FastifyPluginAsync {
  return async (app) => {
    app.post(
      '/probe/notes',
      { config: { permission: 'SERVICE_TASK_CREATE' }, schema: { body: z.object({ text: z.string().min(1) }) } },
      async (request, reply) => {
        const id = crypto.randomUUID();
        notes.set(id, `${requirePrincipal(request).tenantId}:${(request.body as { text: string }).text}`);
        return reply.status(201).send({ id, greeting: config.PROBE_GREETING });
      },
    );
    app.get(
      '/probe/notes/:id',
      { config: { permission: 'SERVICE_TASK_READ' }, schema: { params: z.object({ id: z.uuid() }) } },
      async (request) => {
        const note = notes.get((request.params as { id: string }).id);
        if (!note?.startsWith(`${requirePrincipal(request).tenantId}:`)) throw new AppError('not_found', 'No note');
        return { text: note.split(':')[1] };
      },
    );
  };
}

/** A tiny service built the way every service is. */
function buildProbe(deps: ProbeDeps): ServiceInstance & { deps: ProbeDeps; started: boolean } {
  const service = {
    name: 'scheduler' as const,
    routes: probeRoutes({ notes: deps.notes ?? new Map<string, string>(), config: deps.config }),
    readiness: {},
    deps,
    started: false,
    async start() {
      service.started = true;
    },
    async stop() {},
  };
  return service;
}

const probeModule = defineServiceModule({
  name: 'scheduler',
  dbConfig: { schema: 'probe', entities: eventEntities, migrations: [] },
  configSchema,
  dependsOn: ['auth'],
  build: buildProbe,
  routes: probeRoutes,
});

let h: Awaited<ReturnType<typeof startHarness>>;
const startHarness = () =>
  startServiceHarness(probeModule, {
    env: { PROBE_GREETING: 'hi' },
    deps: { notes: new Map() },
    grpcAddresses: { auth: '127.0.0.1:50999' },
  });
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

describe('startServiceHarness', () => {
  it('builds the service from its module: parsed env, test deps, in-process transport, started', async () => {
    expect(h.service.deps.config.PROBE_GREETING).toBe('hi');
    expect(h.service.deps.notes).toBeInstanceOf(Map);
    expect(h.transport).toBeInstanceOf(InProcessTransport);
    expect(h.service.started).toBe(true);
    expect(h.service.deps.grpcAddress('auth')).toBe('127.0.0.1:50999');
    expect(() => h.service.deps.grpcAddress('task')).toThrow('no gRPC address for task');
    // The ORM was opened with the module's dbConfig: its own schema on a fresh database.
    const rows = await sqlRows<{ schema: string }>(h.orm, 'select current_schema() as schema');
    expect(rows[0]?.schema).toBe('probe');
    expect(h.db.name).toMatch(/^t_/);
  });

  it('serves both mounts and lists each registered route once', async () => {
    const user = h.tokens.user();
    const created = await h.call(user, 'POST', '/probe/notes', { text: 'milk' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().greeting).toBe('hi');
    const viaV1 = await h.app.inject({
      url: `/v1/probe/notes/${created.json().id}`,
      headers: await h.tokens.auth(user),
    });
    expect(viaV1.json()).toEqual({ text: 'milk' });
    expect(h.routes.map((r) => `${r.method} ${r.path}`).sort()).toEqual(['GET /probe/notes/:id', 'POST /probe/notes']);
  });

  it('documents its routes from the module alone, with dependencies that are never used', async () => {
    const document = (await buildOpenApiDocument([probeModule.documentedRoutes()])) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(Object.keys(document.paths)).toEqual(['/api/v1/probe/notes', '/api/v1/probe/notes/{id}']);
    expect(Object.keys(document.paths['/api/v1/probe/notes'] ?? {})).toEqual(['post']);
  });

  it('spawns another, unstarted instance on the same database and closes it with the harness', async () => {
    const other = await h.spawn({ env: { PROBE_GREETING: 'hey' } });
    expect(other.service.started).toBe(false);
    expect(other.service.deps.orm).toBe(h.orm);
    expect(other.service.deps.config.PROBE_GREETING).toBe('hey');
  });
});

runRouteGuards('probe', () => tokenGuardTarget(h), {
  'POST /probe/notes': { permission: 'SERVICE_TASK_CREATE', body: () => ({ text: 'x' }), invalid: { body: {} } },
  'GET /probe/notes/:id': {
    permission: 'SERVICE_TASK_READ',
    fixture: async (owner) => ({ id: (await h.call(owner, 'POST', '/probe/notes', { text: 'mine' })).json().id }),
    invalid: { params: { id: 'nope' } },
  },
});
