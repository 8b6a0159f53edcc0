import { hash, verify } from '@node-rs/argon2';
import { z } from 'zod';

/**
 * A small built-in list of the most common passwords (8+ characters, since shorter ones fail on length).
 * Compared lower-cased, so "Password1" is refused too.
 */
const COMMON_PASSWORDS = new Set([
  '12345678',
  '123456789',
  '1234567890',
  '12345678910',
  '87654321',
  '11111111',
  '00000000',
  '88888888',
  '123123123',
  '1q2w3e4r',
  '1qaz2wsx',
  'qwertyui',
  'qwertyuiop',
  'qwerty123',
  'qwerty12',
  'asdfghjkl',
  'zxcvbnm1',
  'password',
  'password1',
  'password12',
  'password123',
  'passw0rd',
  'p@ssw0rd',
  'p@ssword',
  'iloveyou',
  'iloveyou1',
  'sunshine',
  'princess',
  'football',
  'baseball',
  'welcome1',
  'welcome123',
  'abc12345',
  'abcd1234',
  'abcdefgh',
  'letmein1',
  'trustno1',
  'superman',
  'starwars',
  'whatever',
  'dragon12',
  'monkey12',
  'master12',
  'changeme',
  'computer',
  'michelle',
  'jennifer',
  'corvette',
  'mercedes',
  'internet',
  'admin123',
  'administrator',
  'secret123',
  'football1',
  'q1w2e3r4',
  'aa123456',
  'routinely',
  'routinely1',
  'routinely123',
]);

function isCommonPassword(password: string): boolean {
  return COMMON_PASSWORDS.has(password.toLowerCase());
}

/** The rule for every new password: 8..128 characters and not a common one. Fails as a 422 on the field. */
export const newPasswordSchema = z
  .string()
  .min(8, 'must be at least 8 characters')
  .max(128, 'must be at most 128 characters')
  .refine((v) => !isCommonPassword(v), 'is too common; choose a less guessable password');

// @node-rs/argon2 exports Algorithm as a const enum, which isolatedModules cannot read; 2 is Argon2id.
const ARGON2ID = 2;

/** argon2id hashing with a dummy hash, so a login for an unknown email costs the same as a wrong password. */
export class PasswordHasher {
  private dummy: Promise<string> | undefined;
  constructor(private readonly cost: { memoryKiB: number; timeCost: number }) {}

  hash(password: string): Promise<string> {
    return hash(password, {
      algorithm: ARGON2ID,
      memoryCost: this.cost.memoryKiB,
      timeCost: this.cost.timeCost,
      parallelism: 1,
    });
  }

  /**
   * Verifies against `stored`, or against a dummy hash of the same cost when there is none (unknown user,
   * or an SSO-only account), and then answers false: both paths do one argon2 verification.
   */
  async verify(stored: string | null | undefined, password: string): Promise<boolean> {
    if (!stored) {
      await verify(await this.dummyHash(), password).catch(() => false);
      return false;
    }
    return verify(stored, password).catch(() => false);
  }

  /** Computes the dummy hash ahead of the first login, so the first unknown-email login is not slower. */
  async warmUp(): Promise<void> {
    await this.dummyHash();
  }

  private dummyHash(): Promise<string> {
    this.dummy ??= this.hash('routinely-dummy-password-for-timing');
    return this.dummy;
  }
}
