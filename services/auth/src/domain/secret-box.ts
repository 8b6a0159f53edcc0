import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for secrets at rest (signing keys, TOTP seeds). Output: `v1.<iv>.<tag>.<ciphertext>` in
 * base64url, so a later key or algorithm change can be told apart by the version prefix.
 */
export class SecretBox {
  private readonly key: Buffer;
  private readonly hmacKey: Buffer;
  constructor(base64Key: string) {
    this.key = Buffer.from(base64Key, 'base64');
    if (this.key.length !== 32) throw new Error('ENCRYPTION_KEY must be 32 bytes (base64)');
    // A separate key for keyed hashes, so the encryption key is never used for two purposes.
    this.hmacKey = createHash('sha256').update('routinely-auth-hmac').update(this.key).digest();
  }

  encrypt(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    // The context (e.g. the user id) is bound as associated data: a ciphertext copied to another row fails.
    cipher.setAAD(Buffer.from(context));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), ciphertext]
      .map((x) => (typeof x === 'string' ? x : x.toString('base64url')))
      .join('.');
  }

  decrypt(sealed: string, context: string): string {
    const [version, iv, tag, ciphertext] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || ciphertext === undefined) throw new Error('unknown secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** Keyed hash for short secrets (backup codes): a stolen table cannot be brute-forced offline without the key. */
  keyedHash(value: string): string {
    return createHmac('sha256', this.hmacKey).update(value).digest('hex');
  }
}

/** Unkeyed hash for high-entropy tokens (refresh tokens, MFA challenge tokens). */
export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

export const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url');
