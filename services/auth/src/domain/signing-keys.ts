import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { Sql } from '@routinely/db';
import type { Clock, SecretBox } from '@routinely/platform';
import { exportJWK, type JSONWebKeySet, type JWK, SignJWT } from 'jose';
import { v7 as uuidv7 } from 'uuid';
import {
  activeSigningKeys,
  countActiveSigningKeys,
  insertSigningKey,
  lockSigningKeys,
} from '../db/signing-keys-sql.js';

interface ActiveKey {
  kid: string;
  privateKey: KeyObject;
}

/**
 * The Ed25519 keys access tokens are signed with. Generated on first start and kept in the auth schema with
 * the private half sealed under ENCRYPTION_KEY, so every replica and every restart signs with the same key.
 */
export class SigningKeyStore {
  private loading: Promise<{ active: ActiveKey; jwks: JSONWebKeySet }> | undefined;
  constructor(
    private readonly db: Sql,
    private readonly box: SecretBox,
    private readonly clock: Clock,
  ) {}

  /** Loads the keys, creating the first one if the table is empty. Safe to call concurrently from replicas. */
  load(): Promise<{ active: ActiveKey; jwks: JSONWebKeySet }> {
    this.loading ??= this.loadOrCreate().catch((error: unknown) => {
      this.loading = undefined;
      throw error;
    });
    return this.loading;
  }

  async jwks(): Promise<JSONWebKeySet> {
    return (await this.load()).jwks;
  }

  async sign(claims: Record<string, unknown>, subject: string, ttlSeconds: number, jti: string): Promise<string> {
    const { active } = await this.load();
    const now = Math.floor(this.clock.now().getTime() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'EdDSA', kid: active.kid, typ: 'JWT' })
      .setSubject(subject)
      .setJti(jti)
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSeconds)
      .sign(active.privateKey);
  }

  private async loadOrCreate(): Promise<{ active: ActiveKey; jwks: JSONWebKeySet }> {
    await this.db.transaction(async (sql) => {
      await lockSigningKeys(sql);
      const existing = await countActiveSigningKeys(sql);
      if (existing > 0) return;
      const kid = uuidv7();
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' };
      await insertSigningKey(sql, {
        kid,
        publicJwk: jwk as Record<string, unknown>,
        privateKey: this.box.seal(pem, kid),
        createdAt: this.clock.now(),
        retiredAt: null,
      });
    });
    const rows = await activeSigningKeys(this.db);
    const newest = rows[0];
    if (!newest) throw new Error('no signing key');
    const privateKey = createPrivateKey(this.box.open(newest.privateKey, newest.kid));
    // Fail early if the stored public half does not belong to the private key (a corrupted row).
    const derived = await exportJWK(createPublicKey(privateKey));
    if (derived.x !== newest.publicJwk.x) throw new Error(`signing key ${newest.kid} is inconsistent`);
    return {
      active: { kid: newest.kid, privateKey },
      jwks: { keys: rows.map((r) => r.publicJwk as JWK) },
    };
  }
}
