import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createSecretKey,
  type KeyObject,
  randomBytes,
} from 'node:crypto';

/**
 * AES-256-GCM for secrets at rest (signing keys, TOTP seeds, webhook secrets, OAuth tokens). Sealed form:
 * `v1.<iv>.<tag>.<ciphertext>` in base64url. Every seal binds a context (the owning row's id) as associated
 * data, so a ciphertext copied into another row does not open there. `v0.` marks ciphertexts sealed before
 * contexts were bound; `openUnbound` exists only to re-seal those.
 */
export class SecretBox {
  /** A KeyObject, not the raw bytes: a cipher built from raw bytes imports the key again on every call (~6x slower). */
  private readonly key: KeyObject;
  private readonly hmacKey: Buffer;

  constructor(base64Key: string) {
    const key = Buffer.from(base64Key, 'base64');
    if (key.length !== 32) throw new Error('ENCRYPTION_KEY must be base64 of exactly 32 bytes');
    this.key = createSecretKey(key);
    // A separate key for keyed hashes, so the encryption key is never used for two purposes. The label predates
    // this class's move out of the auth service; changing it would orphan every stored backup-code hash.
    this.hmacKey = createHash('sha256').update('routinely-auth-hmac').update(key).digest();
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), ciphertext]
      .map((x) => (typeof x === 'string' ? x : x.toString('base64url')))
      .join('.');
  }

  open(sealed: string, context: string): string {
    return this.decipher(sealed, 'v1', Buffer.from(context, 'utf8'));
  }

  /** Opens a `v0.` ciphertext (no associated data); callers re-seal it with `seal` at once. */
  openUnbound(sealed: string): string {
    return this.decipher(sealed, 'v0', Buffer.alloc(0));
  }

  static isUnbound(sealed: string): boolean {
    return sealed.startsWith('v0.');
  }

  /** Keyed hash for short secrets (backup codes): a stolen table cannot be brute-forced offline without the key. */
  keyedHash(value: string): string {
    return createHmac('sha256', this.hmacKey).update(value).digest('hex');
  }

  private decipher(sealed: string, expectedVersion: string, aad: Buffer): string {
    const [version, iv, tag, ciphertext] = sealed.split('.');
    if (version !== expectedVersion || !iv || !tag || ciphertext === undefined) {
      throw new Error('unrecognised sealed secret');
    }
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(aad);
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/** Unkeyed hash for high-entropy tokens (refresh tokens, challenge tokens, OAuth state). */
export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

export const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url');
