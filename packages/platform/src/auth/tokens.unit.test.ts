import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import { MemoryRevocationStore } from './revocations.js';
import { createTokenVerifier } from './tokens.js';

async function setup() {
  const clock = new ManualClock('2026-11-21T08:00:00Z');
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'EdDSA' };
  const revocations = new MemoryRevocationStore(() => clock.now().getTime());
  const verify = createTokenVerifier({
    getKey: createLocalJWKSet({ keys: [jwk] }),
    issuer: 'routinely',
    audience: 'routinely-api',
    revocations,
    clock,
  });
  const sign = (claims: Record<string, unknown> = {}, ttl = 60) => {
    const iat = Math.floor(clock.now().getTime() / 1000);
    return new SignJWT({ tenant_id: 't1', sid: 's1', typ: 'access', permissions: ['SERVICE_TASK_READ'], ...claims })
      .setProtectedHeader({ alg: 'EdDSA', kid: 'k1' })
      .setSubject('u1')
      .setIssuer('routinely')
      .setAudience('routinely-api')
      .setJti(crypto.randomUUID())
      .setIssuedAt(iat)
      .setExpirationTime(iat + ttl)
      .sign(privateKey);
  };
  return { clock, revocations, verify, sign };
}

describe('token verifier', () => {
  it('accepts a valid access token and keeps checking revocation for a remembered one', async () => {
    const { verify, sign, revocations } = await setup();
    const token = await sign();
    expect((await verify(token)).userId).toBe('u1');
    expect((await verify(token)).permissions).toEqual(['SERVICE_TASK_READ']);
    await revocations.revokeSessions(['s1'], 60);
    await expect(verify(token)).rejects.toMatchObject({ code: 'invalid_token', message: 'Token revoked' });
  });

  it('rejects an expired token even when it was remembered', async () => {
    const { verify, sign, clock } = await setup();
    const token = await sign({}, 60);
    await verify(token);
    clock.advance(61_000);
    await expect(verify(token)).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('rejects other token types, audiences and missing claims', async () => {
    const { verify, sign } = await setup();
    await expect(verify(await sign({ typ: 'refresh' }))).rejects.toMatchObject({ code: 'invalid_token' });
    await expect(verify(await sign({ sid: undefined }))).rejects.toMatchObject({ code: 'invalid_token' });
  });
});
