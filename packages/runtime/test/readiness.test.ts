import { connect, createServer, type Server, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { databaseReady, type Orm, openOrm } from '@routinely/db';
import {
  createLogger,
  ManualClock,
  MemoryRevocationStore,
  platformConfigSchema,
  type ServiceInstance,
} from '@routinely/platform';
import { createTestDatabase } from '@routinely/testkit';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildHttpHost } from '../src/index.js';

/** A TCP hop in front of PostgreSQL that can be taken away: the database "goes down" for whoever dials through it. */
async function startHop(target: URL): Promise<{ port: number; down: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    down: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

describe('/readyz while the database is down', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let hop: Awaited<ReturnType<typeof startHop>>;
  let orm: Orm;
  let app: FastifyInstance;
  const logged: string[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    hop = await startHop(new URL(db.url));
    const through = new URL(db.url);
    through.hostname = '127.0.0.1';
    through.port = String(hop.port);
    orm = await openOrm(through.toString(), { schema: 'probe', entities: [], migrations: [] }, { migrate: false });
    const service: ServiceInstance = {
      name: 'task',
      routes: async () => {},
      readiness: { database: () => databaseReady(orm) },
      start: async () => {},
      stop: async () => {},
    };
    const destination = new Writable({
      write(chunk, _encoding, done) {
        logged.push(String(chunk));
        done();
      },
    });
    app = await buildHttpHost({
      config: platformConfigSchema.parse({}),
      logger: createLogger({ level: 'warn', destination }),
      clock: new ManualClock(),
      services: [service],
      fetchJwks: async () => ({ keys: [] }),
      revocations: new MemoryRevocationStore(),
      metrics: false,
    });
  });
  afterAll(async () => {
    await app?.close();
    await orm?.close(true);
    await db?.drop();
  });

  it('answers component names and status only; the socket error goes to the log', async () => {
    const up = await app.inject({ url: '/readyz' });
    expect(up.statusCode, up.body).toBe(200);
    expect(up.json()).toEqual({ status: 'ok', checks: { 'task.database': 'ok' } });

    await hop.down();
    // The pooled connection is cut first ("Connection terminated"), then a new one is refused at the hop's port.
    for (let probe = 0; probe < 2; probe += 1) {
      const down = await app.inject({ url: '/readyz' });
      expect(down.statusCode).toBe(503);
      expect(down.json()).toEqual({ status: 'unavailable', checks: { 'task.database': 'unavailable' } });
      for (const secret of ['127.0.0.1', String(hop.port), 'ECONNREFUSED', 'onnect', 'postgres']) {
        expect(down.body, secret).not.toContain(secret);
      }
    }
    // Operators still learn why: the check and its error are in the log.
    const lines = logged.map((text) => JSON.parse(text)).filter((entry) => entry.msg === 'readiness check failed');
    expect(lines.map((line) => line.check)).toEqual(['task.database', 'task.database']);
    expect(JSON.stringify(lines.map((line) => line.err))).toContain(`ECONNREFUSED 127.0.0.1:${hop.port}`);
  });
});
