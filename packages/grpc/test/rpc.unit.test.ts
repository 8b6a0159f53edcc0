import { AppError } from '@routinely/platform';
import { auth_v1 } from '@routinely/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addRpcService,
  type CallerIdentity,
  createRpcClient,
  createRpcServer,
  InternalAuth,
  reopeningRpcClient,
  Server,
  startRpcServer,
  stopRpcServer,
} from '../src/index.js';

const secret = 'a-test-secret-that-is-long-enough-123456';
const seen: CallerIdentity[] = [];
let server: Server;
let address: string;

beforeAll(async () => {
  server = new Server();
  addRpcService(server, auth_v1.AuthServiceService, new InternalAuth(secret, 'auth'), {
    getJwks: async (_request, caller) => {
      seen.push(caller);
      return { jwksJson: '{"keys":[]}' };
    },
    lookupUser: async (request) => {
      if (request.key?.$case === 'email' && request.key.value === 'slow@example.test') {
        await new Promise((r) => setTimeout(r, 500));
      }
      throw new AppError('not_found', 'No such user');
    },
  });
  address = await startRpcServer(server, '127.0.0.1', 0);
});
afterAll(() => stopRpcServer(server));

describe('gRPC between services', () => {
  it('carries the caller identity inside the signed service token', async () => {
    const client = createRpcClient(auth_v1.AuthServiceService, address, new InternalAuth(secret, 'calendar'));
    const response = await client.getJwks(
      {},
      { actor: { tenantId: 't1', userId: 'u1', permissions: ['SERVICE_TASK_READ'] } },
    );
    expect(response.jwksJson).toBe('{"keys":[]}');
    expect(seen.at(-1)).toEqual({
      service: 'calendar',
      tenantId: 't1',
      userId: 'u1',
      permissions: ['SERVICE_TASK_READ'],
    });
    client.close();
  });

  it('refuses callers without valid service credentials', async () => {
    const intruder = createRpcClient(
      auth_v1.AuthServiceService,
      address,
      new InternalAuth('another-secret-that-is-long-enough-xyz', 'evil'),
    );
    await expect(intruder.getJwks({})).rejects.toMatchObject({ code: 'not_authenticated' });
    intruder.close();
  });

  it('maps typed errors to gRPC status and back, and enforces deadlines', async () => {
    const client = createRpcClient(auth_v1.AuthServiceService, address, new InternalAuth(secret, 'calendar'));
    const missing = client.lookupUser({ key: { $case: 'email', value: 'nobody@example.test' } });
    await expect(missing).rejects.toBeInstanceOf(AppError);
    await expect(missing).rejects.toMatchObject({ code: 'not_found', message: 'No such user' });
    await expect(
      client.lookupUser({ key: { $case: 'email', value: 'slow@example.test' } }, { deadlineMs: 100 }),
    ).rejects.toMatchObject({ code: 'service_unavailable' });
    client.close();
  });

  it('reopens a closed client on its next call (an adapter closed in stop, used again after start)', async () => {
    const client = reopeningRpcClient(auth_v1.AuthServiceService, address, new InternalAuth(secret, 'calendar'));
    expect((await client.rpc().getJwks({})).jwksJson).toBe('{"keys":[]}');
    client.close();
    expect((await client.rpc().getJwks({})).jwksJson).toBe('{"keys":[]}');
    client.close();
  });

  it('logs a handler failure that is not a typed error, and answers the caller INTERNAL without its message', async () => {
    const logged: { obj: Record<string, unknown>; msg: string }[] = [];
    const failing = createRpcServer({
      error: (obj: Record<string, unknown>, msg: string) => logged.push({ obj, msg }),
    });
    addRpcService(failing, auth_v1.AuthServiceService, new InternalAuth(secret, 'auth'), {
      getJwks: async () => {
        throw new TypeError('row.at.toISOString is not a function');
      },
      lookupUser: async () => {
        throw new AppError('not_found', 'No such user');
      },
    });
    const at = await startRpcServer(failing, '127.0.0.1', 0);
    const client = createRpcClient(auth_v1.AuthServiceService, at, new InternalAuth(secret, 'calendar'));
    try {
      const refused = await client.getJwks({}).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(AppError);
      expect(String((refused as AppError).message)).not.toContain('toISOString');
      expect(logged).toEqual([
        {
          obj: {
            err: expect.objectContaining({ message: 'row.at.toISOString is not a function' }),
            rpc: '/auth.v1.AuthService/GetJwks',
          },
          msg: 'unhandled error in a gRPC handler',
        },
      ]);
    } finally {
      client.close();
      await stopRpcServer(failing);
    }
  });

  it('reports a peer that does not answer by its name, without gRPC internals in the message', async () => {
    const idle = new Server();
    const gone = await startRpcServer(idle, '127.0.0.1', 0);
    await stopRpcServer(idle);
    const client = createRpcClient(auth_v1.AuthServiceService, gone, new InternalAuth(secret, 'calendar'));
    try {
      const failed = await client.getJwks({}, { deadlineMs: 2_000 }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failed).toBeInstanceOf(AppError);
      expect(failed).toMatchObject({ code: 'service_unavailable', message: 'The auth service is unavailable' });
      // The transport's own reason stays on the cause, for the logs.
      expect(String((failed as AppError).cause)).toMatch(/UNAVAILABLE|DEADLINE_EXCEEDED/);
    } finally {
      client.close();
    }
  });
});

describe('gRPC load balancing', () => {
  it('spreads calls over every address of the peer (a headless Service resolves to one per pod)', async () => {
    const hits = [0, 0];
    const replicas = hits.map((_, i) => {
      const replica = new Server();
      addRpcService(replica, auth_v1.AuthServiceService, new InternalAuth(secret, 'auth'), {
        getJwks: async () => {
          hits[i] = (hits[i] ?? 0) + 1;
          return { jwksJson: '{"keys":[]}' };
        },
        lookupUser: async () => {
          throw new AppError('not_found', 'No such user');
        },
      });
      return replica;
    });
    const addresses = await Promise.all(replicas.map((replica) => startRpcServer(replica, '127.0.0.1', 0)));
    // One name with two addresses, as DNS answers for a headless Service with two ready pods.
    const target = `ipv4:${addresses.join(',')}`;
    const client = createRpcClient(auth_v1.AuthServiceService, target, new InternalAuth(secret, 'calendar'));
    try {
      for (let i = 0; i < 10; i++) await client.getJwks({});
      expect(hits[0]).toBeGreaterThan(0);
      expect(hits[1]).toBeGreaterThan(0);
    } finally {
      client.close();
      await Promise.all(replicas.map((replica) => stopRpcServer(replica)));
    }
  });
});
