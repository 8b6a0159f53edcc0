import { randomBytes } from 'node:crypto';
import type { Sql } from '@routinely/db';
import { AppError, type Clock, randomToken, type SecretBox, sha256 } from '@routinely/platform';
import { authenticator } from 'otplib';
import QRCode from 'qrcode';
import { v7 as uuidv7 } from 'uuid';
import type { AuthConfig } from '../config.js';
import { deleteBackupCodes, insertBackupCodes, useBackupCode } from '../db/mfa-backup-codes-sql.js';
import { consumeChallenge, countChallengeAttempt, findChallenge, insertChallenge } from '../db/mfa-challenges-sql.js';
import {
  acceptTotpStep,
  clearMfa,
  confirmMfaSecret,
  findUser,
  type UserRow,
  writePendingMfaSecret,
} from '../db/users-sql.js';
import { accountDisabled } from './accounts.js';
import type { LoginThrottle } from './login-throttle.js';
import type { ProfileCache } from './profile.js';

const STEP_SECONDS = 30;
const BACKUP_CODE_COUNT = 10;
const BACKUP_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const MAX_CHALLENGE_ATTEMPTS = 5;

export interface MfaSetup {
  secret: string;
  otpauth_url: string;
  qr_code_url: string;
  backup_codes: string[];
}

const invalidCode = () => new AppError('invalid_mfa_code', 'Invalid MFA code');
const invalidChallenge = () => new AppError('invalid_token', 'Invalid or expired MFA token');
const alreadyEnabled = () => new AppError('mfa_already_enabled', 'MFA is already enabled');

/** 10 characters from a 31-letter alphabet (~50 bits), shown as xxxxx-xxxxx. */
function newBackupCode(): string {
  const bytes = randomBytes(10);
  const chars = [...bytes].map((b) => BACKUP_ALPHABET[b % BACKUP_ALPHABET.length]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

const normaliseBackupCode = (code: string) => code.toLowerCase().replace(/[\s-]/g, '');

/**
 * TOTP (RFC 6238, 30 s steps, ±1 step of drift) and backup codes. A TOTP code is accepted once: the
 * accepted time step is stored and only a later step passes. Backup codes are keyed hashes, single-use.
 */
export class MfaService {
  constructor(
    private readonly db: Sql,
    private readonly box: SecretBox,
    private readonly clock: Clock,
    private readonly config: AuthConfig,
    private readonly throttle: LoginThrottle,
    /** The MFA columns are part of the cached profile: every write here drops the user's entry. */
    private readonly cache: ProfileCache,
  ) {}

  async setup(user: UserRow): Promise<MfaSetup> {
    if (user.mfaEnabled) throw alreadyEnabled();
    const secret = authenticator.generateSecret(20);
    const codes = Array.from({ length: BACKUP_CODE_COUNT }, newBackupCode);
    const now = this.clock.now();
    await this.db.transaction(async (sql) => {
      const updated = await writePendingMfaSecret(sql, user.tenantId, user.id, this.box.seal(secret, user.id), now);
      if (updated === 0) throw alreadyEnabled();
      // A new setup replaces codes of an earlier, unconfirmed one.
      await deleteBackupCodes(sql, user.tenantId, user.id);
      await insertBackupCodes(
        sql,
        codes.map((code) => ({
          id: uuidv7(),
          tenantId: user.tenantId,
          userId: user.id,
          codeHash: this.box.keyedHash(normaliseBackupCode(code)),
          createdAt: now,
          usedAt: null,
        })),
      );
    });
    this.cache.invalidate(user.id);
    const otpauthUrl = authenticator.keyuri(user.email, this.config.MFA_ISSUER, secret);
    return { secret, otpauth_url: otpauthUrl, qr_code_url: await QRCode.toDataURL(otpauthUrl), backup_codes: codes };
  }

  /** Confirms a setup with a first TOTP code from the pending secret; MFA is on from here. */
  async confirm(user: UserRow, code: string): Promise<void> {
    if (user.mfaEnabled) throw alreadyEnabled();
    if (!user.mfaPendingSecret) throw new AppError('mfa_not_enabled', 'Start with POST /auth/mfa/setup');
    const secret = this.box.open(user.mfaPendingSecret, user.id);
    const step = this.matchingStep(secret, code.trim());
    if (step === null) throw invalidCode();
    const updated = await confirmMfaSecret(
      this.db,
      user.tenantId,
      user.id,
      user.mfaPendingSecret,
      step,
      this.clock.now(),
    );
    if (updated === 0) throw invalidCode();
    this.cache.invalidate(user.id);
  }

  /** Checks a TOTP or backup code of a user with MFA on, consuming it. */
  async verifySecondFactor(user: UserRow, code: string): Promise<void> {
    if (!user.mfaEnabled || !user.mfaSecret) throw invalidCode();
    const trimmed = code.trim();
    if (/^\d{6}$/.test(trimmed)) {
      const step = this.matchingStep(this.box.open(user.mfaSecret, user.id), trimmed);
      if (step === null) throw invalidCode();
      // Atomic: of two requests with the same code, one moves the step forward and the other finds it used.
      const accepted = await acceptTotpStep(this.db, user.tenantId, user.id, step);
      if (accepted === 0) throw invalidCode();
      return;
    }
    const used = await useBackupCode(
      this.db,
      user.tenantId,
      user.id,
      this.box.keyedHash(normaliseBackupCode(trimmed)),
      this.clock.now(),
    );
    if (used === 0) throw invalidCode();
  }

  async disable(user: UserRow): Promise<void> {
    await this.db.transaction(async (sql) => {
      await clearMfa(sql, user.tenantId, user.id, this.clock.now());
      await deleteBackupCodes(sql, user.tenantId, user.id);
    });
    this.cache.invalidate(user.id);
  }

  /** The second step of a login: an opaque token, valid for MFA_TOKEN_TTL_SECONDS and 5 attempts. */
  async createChallenge(user: UserRow): Promise<{ mfa_token: string; expires_in: number }> {
    const token = randomToken();
    const ttl = this.config.MFA_TOKEN_TTL_SECONDS;
    await insertChallenge(this.db, {
      id: uuidv7(),
      tenantId: user.tenantId,
      userId: user.id,
      tokenHash: sha256(token),
      attempts: 0,
      expiresAt: new Date(this.clock.now().getTime() + ttl * 1000),
      consumedAt: null,
    });
    return { mfa_token: token, expires_in: ttl };
  }

  /**
   * A code check that counts as a failed login on failure, so guessing codes (with new challenges) runs into
   * the same (account, IP) block and account slow-down as guessing passwords.
   */
  async verifyThrottled(user: UserRow, code: string, ip: string): Promise<void> {
    await this.throttle.gate(user.email, ip);
    try {
      await this.verifySecondFactor(user, code);
    } catch (error) {
      if (error instanceof AppError && error.code === 'invalid_mfa_code')
        await this.throttle.recordFailure(user.email, ip);
      throw error;
    }
  }

  /** Completes a login: checks the challenge and the code, consumes both, returns the user. */
  async completeChallenge(mfaToken: string, code: string, ip: string): Promise<UserRow> {
    const now = this.clock.now();
    const challenge = await findChallenge(this.db, sha256(mfaToken));
    if (
      !challenge ||
      challenge.consumedAt ||
      challenge.expiresAt <= now ||
      challenge.attempts >= MAX_CHALLENGE_ATTEMPTS
    ) {
      throw invalidChallenge();
    }
    // Count the attempt before checking, so parallel guesses cannot exceed the budget.
    const counted = await countChallengeAttempt(this.db, challenge.id, challenge.attempts + 1, MAX_CHALLENGE_ATTEMPTS);
    if (counted === 0) throw invalidChallenge();
    const user = await findUser(this.db, challenge.tenantId, challenge.userId);
    if (!user) throw invalidChallenge();
    await this.verifyThrottled(user, code, ip);
    const consumed = await consumeChallenge(this.db, challenge.id, now);
    if (consumed === 0) throw invalidChallenge();
    await this.throttle.recordSuccess(user.email, ip);
    if (!user.isActive) throw accountDisabled();
    return user;
  }

  /** The time step a code matches (±1 step around the injected clock), or null. */
  private matchingStep(secret: string, code: string): number | null {
    const epoch = this.clock.now().getTime();
    const delta = authenticator.clone({ epoch, window: 1, step: STEP_SECONDS }).checkDelta(code, secret);
    if (delta === null) return null;
    return Math.floor(epoch / 1000 / STEP_SECONDS) + delta;
  }
}
