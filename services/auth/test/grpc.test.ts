import { status } from '@grpc/grpc-js';
import { createRpcClient, InternalAuth, type RpcClient, Server, startRpcServer, stopRpcServer } from '@routinely/grpc';
import { AppError } from '@routinely/platform';
import { auth_v1 } from '@routinely/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthHarness, INTERNAL_SECRET, register, startAuth } from './harness.js';

const TENANT_A = '01900000-0000-7000-8000-0000000000a1';
const TENANT_B = '01900000-0000-7000-8000-0000000000b1';

let h: AuthHarness;
let server: Server;
let address: string;
let client: RpcClient<typeof auth_v1.AuthServiceService>;

beforeAll(async () => {
  h = await startAuth();
  server = new Server();
  h.service.addGrpc?.(server);
  address = await startRpcServer(server, '127.0.0.1', 0);
  client = createRpcClient(auth_v1.AuthServiceService, address, new InternalAuth(INTERNAL_SECRET, 'calendar'));
});
afterAll(async () => {
  client?.close();
  if (server) await stopRpcServer(server);
  await h?.close();
});

describe('auth gRPC', () => {
  it('GetJwks returns the same key set as /.well-known/jwks.json', async () => {
    const res = await client.getJwks({});
    const http = await h.app.inject({ url: '/.well-known/jwks.json' });
    expect(JSON.parse(res.jwksJson)).toEqual(http.json());
  });

  it('LookupUser finds users by id or email within the caller tenant only', async () => {
    const alice = await register(h.app, { tenant_id: TENANT_A, name: 'Alice' });
    const bob = await register(h.app, { tenant_id: TENANT_B });
    const actor = { tenantId: TENANT_A, userId: alice.userId };
    const byId = await client.lookupUser({ key: { $case: 'userId', value: alice.userId } }, { actor });
    expect(byId).toEqual({
      found: true,
      user: { id: alice.userId, tenantId: TENANT_A, email: alice.email, name: 'Alice', isActive: true },
    });
    const byEmail = await client.lookupUser({ key: { $case: 'email', value: alice.email.toUpperCase() } }, { actor });
    expect(byEmail.user?.id).toBe(alice.userId);
    // Another tenant's user is simply not found, by id or by email.
    expect((await client.lookupUser({ key: { $case: 'userId', value: bob.userId } }, { actor })).found).toBe(false);
    expect((await client.lookupUser({ key: { $case: 'email', value: bob.email } }, { actor })).found).toBe(false);
    expect((await client.lookupUser({ key: { $case: 'userId', value: 'not-a-uuid' } }, { actor })).found).toBe(false);
  });

  it('LookupUser without a tenant in the internal token is INVALID_ARGUMENT', async () => {
    const call = client.lookupUser({ key: { $case: 'email', value: 'x@example.test' } });
    await expect(call).rejects.toBeInstanceOf(AppError);
    await expect(call).rejects.toMatchObject({ code: 'validation_failed', cause: { code: status.INVALID_ARGUMENT } });
  });

  it('refuses callers without valid internal credentials', async () => {
    const forged = createRpcClient(
      auth_v1.AuthServiceService,
      address,
      new InternalAuth('a-different-secret-0123456789abcdef', 'evil'),
    );
    try {
      const call = forged.lookupUser(
        { key: { $case: 'email', value: 'x@example.test' } },
        { actor: { tenantId: TENANT_A } },
      );
      await expect(call).rejects.toMatchObject({ code: 'not_authenticated', cause: { code: status.UNAUTHENTICATED } });
      await expect(forged.getJwks({})).rejects.toMatchObject({ cause: { code: status.UNAUTHENTICATED } });
    } finally {
      forged.close();
    }
  });
});
