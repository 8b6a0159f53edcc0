import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretBox } from './secret-box.js';

const key = () => randomBytes(32).toString('base64');

describe('SecretBox', () => {
  const box = new SecretBox(key());

  it('round-trips, never stores the plaintext, and detects tampering', () => {
    const sealed = box.seal('whsec_abcdefghijklmnop', 'row-1');
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain('abcdefghijklmnop');
    expect(box.seal('whsec_abcdefghijklmnop', 'row-1')).not.toBe(sealed);
    expect(box.open(sealed, 'row-1')).toBe('whsec_abcdefghijklmnop');
    const parts = sealed.split('.');
    parts[3] = Buffer.from('x'.repeat(10)).toString('base64url');
    expect(() => box.open(parts.join('.'), 'row-1')).toThrow();
    expect(() => new SecretBox(key()).open(sealed, 'row-1')).toThrow();
  });

  it('binds the context: a ciphertext copied to another row does not open there', () => {
    const sealed = box.seal('secret', 'row-1');
    expect(() => box.open(sealed, 'row-2')).toThrow();
  });

  it('opens v0 ciphertexts (sealed without associated data) only through openUnbound', () => {
    const k = key();
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', Buffer.from(k, 'base64'), iv);
    const data = Buffer.concat([cipher.update('legacy', 'utf8'), cipher.final()]);
    const legacy = ['v0', iv, cipher.getAuthTag(), data]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
    const legacyBox = new SecretBox(k);
    expect(SecretBox.isUnbound(legacy)).toBe(true);
    expect(legacyBox.openUnbound(legacy)).toBe('legacy');
    expect(() => legacyBox.open(legacy, '')).toThrow(/unrecognised/);
    expect(() => legacyBox.openUnbound(legacyBox.seal('x', 'c'))).toThrow(/unrecognised/);
  });

  it('refuses keys that are not 32 bytes and keys hashes apart from encryption', () => {
    expect(() => new SecretBox(randomBytes(16).toString('base64'))).toThrow(/32 bytes/);
    expect(box.keyedHash('code')).toMatch(/^[0-9a-f]{64}$/);
    expect(new SecretBox(key()).keyedHash('code')).not.toBe(box.keyedHash('code'));
  });
});
