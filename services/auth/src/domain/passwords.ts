import { hash, verify } from '@node-rs/argon2';
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import * as en from '@zxcvbn-ts/language-en';
import { z } from 'zod';

/**
 * Password strength by zxcvbn (its common-password, name, word and keyboard-pattern dictionaries): a
 * password must score at least 3 of 4 ("safely unguessable"), with the user's own email counted as a
 * guessable input. Runs only where a password is chosen (register, change, setup), never at login, so a
 * login's cost stays one argon2 verification whatever the password.
 */
const strength = new ZxcvbnFactory({
  translations: en.translations,
  graphs: common.adjacencyGraphs,
  dictionary: { ...common.dictionary, ...en.dictionary, routinely: ['routinely'] },
});
const MIN_SCORE = 3;

/** The last few verdicts: one request judges the same password more than once (alone, then with its email). */
const recent = new Map<string, string | undefined>();

/** Why `password` may not be chosen by the owner of `email` (undefined when it may). */
export function passwordProblem(password: string, email?: string): string | undefined {
  const key = `${email ?? ''}\u0000${password}`;
  if (recent.has(key)) return recent.get(key);
  const verdict = judge(password, email);
  recent.set(key, verdict);
  if (recent.size > 16) recent.delete(recent.keys().next().value as string);
  return verdict;
}

function judge(password: string, email: string | undefined): string | undefined {
  if (/^(.)\1*$/su.test(password)) return 'must not be one repeated character';
  const userInputs: string[] = [];
  if (email) {
    const lower = email.trim().toLowerCase();
    const local = lower.slice(0, lower.lastIndexOf('@'));
    const candidate = password.trim().toLowerCase();
    if (candidate === lower || (local && candidate === local)) return 'must not be your email address';
    userInputs.push(lower, local);
  }
  if (strength.check(password, userInputs).score < MIN_SCORE) {
    return 'is too easy to guess (a common password, word or pattern); choose a longer, less predictable one';
  }
  return undefined;
}

/** The rule for every new password: 8..128 characters and hard to guess. Fails as a 422 on the field. */
export const newPasswordSchema = z
  .string()
  .min(8, 'must be at least 8 characters')
  .max(128, 'must be at most 128 characters')
  .superRefine((value, ctx) => {
    if (value.length < 8 || value.length > 128) return;
    const problem = passwordProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

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
