import type { Orm } from '@routinely/db';
import type { EventTransport } from '@routinely/events';
import { addRpcService, InternalAuth, Server, startRpcServer, stopRpcServer } from '@routinely/grpc';
import { ManualClock, type ServiceInstance } from '@routinely/platform';
import { auth_v1 } from '@routinely/proto';
import { type RegisteredRoute, startServiceHarness, type TestTokens, type TestUser } from '@routinely/testkit';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { calendarModule } from '../src/index.js';

export const TEST_INTERNAL_SECRET = 'calendar-test-internal-secret-0123456789abcdef';

/**
 * A loopback gRPC server speaking the auth service's real AuthService protocol over a small in-test user
 * directory, scoped like the real one: the tenant comes from the verified service token, never the request.
 */
class TestAuthDirectory {
  readonly users: TestUser[] = [];
  /** Tenants the lookups were scoped to, as the verified service token said. */
  readonly lookupTenants: (string | null)[] = [];
  private readonly server = new Server();
  address = '';

  static async start(): Promise<TestAuthDirectory> {
    const dir = new TestAuthDirectory();
    addRpcService(dir.server, auth_v1.AuthServiceService, new InternalAuth(TEST_INTERNAL_SECRET, 'auth'), {
      getJwks: async () => ({ jwksJson: '{"keys":[]}' }),
      lookupUser: async (request, caller) => {
        dir.lookupTenants.push(caller.tenantId);
        const key = request.key;
        const user = dir.users.find(
          (u) =>
            u.tenantId === caller.tenantId &&
            (key?.$case === 'userId' ? u.userId === key.value : u.email === key?.value),
        );
        if (!user) return { found: false, user: undefined };
        return {
          found: true,
          user: { id: user.userId, tenantId: user.tenantId, email: user.email, name: 'Test User', isActive: true },
        };
      },
    });
    dir.address = await startRpcServer(dir.server, '127.0.0.1', 0);
    return dir;
  }

  add(user: TestUser): TestUser {
    this.users.push(user);
    return user;
  }

  stop(): Promise<void> {
    return stopRpcServer(this.server);
  }
}

export interface Harness {
  app: FastifyInstance;
  orm: Orm;
  tokens: TestTokens;
  clock: ManualClock;
  directory: TestAuthDirectory;
  service: ServiceInstance;
  routes: RegisteredRoute[];
  /** A user of `tenantId` (a fresh tenant when omitted) known to the directory. */
  user(tenantId?: string): TestUser;
  call(
    user: TestUser | null,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
  ): Promise<LightMyRequestResponse>;
  /** POST /calendars as `user`, expecting 201; answers the created calendar. */
  // biome-ignore lint/suspicious/noExplicitAny: the created calendar's JSON, read loosely by the tests that assert on it
  createCalendar(user: TestUser, body: Record<string, unknown>): Promise<any>;
  /** POST /calendars/:id/share as `by`, answering the raw response (many tests expect a refusal). */
  share(by: TestUser, calendarId: string, body: Record<string, unknown>): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** The `loc` of every field error of a 422 problem, dotted (`body.name`). */
export function errorLocs(res: LightMyRequestResponse): string[] {
  return res.json().errors.map((e: { loc: string[] }) => e.loc.join('.'));
}

/**
 * The calendar service from its module (the shared harness), finding "auth" at a loopback directory that
 * speaks the real AuthService protocol: the service dials it through `grpcAddress('auth')` as in production.
 */
export async function startHarness(options: { transport?: EventTransport; startService?: boolean } = {}) {
  const directory = await TestAuthDirectory.start();
  const shared = await startServiceHarness(calendarModule, {
    clock: new ManualClock('2026-11-21T08:00:00.000Z'),
    internalSecret: TEST_INTERNAL_SECRET,
    grpcAddresses: { auth: directory.address },
    start: options.startService ?? false,
    ...(options.transport ? { transport: options.transport } : {}),
  }).catch(async (error) => {
    await directory.stop();
    throw error;
  });
  const { app, orm, tokens, clock, service, routes } = shared;
  const harness: Harness = {
    app,
    orm,
    tokens,
    clock,
    directory,
    service,
    routes,
    user(tenantId) {
      return directory.add(tokens.user(tenantId ? { tenantId } : {}));
    },
    async call(user, method, url, payload) {
      const headers = user ? await tokens.auth(user) : {};
      // Paths are written after the mount; a path starting with /v1 or /api/v1 is used as given.
      const full = /^\/(api\/)?v1\//.test(url) ? url : `/api/v1${url}`;
      return app.inject({
        method,
        url: full,
        headers,
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
    },
    async createCalendar(user, body) {
      const res = await harness.call(user, 'POST', '/calendars', body);
      expect(res.statusCode, res.body).toBe(201);
      return res.json();
    },
    share(by, calendarId, body) {
      return harness.call(by, 'POST', `/calendars/${calendarId}/share`, body);
    },
    async close() {
      await shared.close();
      await directory.stop();
    },
  };
  return harness;
}
