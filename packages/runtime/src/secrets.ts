import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface RuntimeSecrets {
  /** Signs calls between services. */
  internalAuthSecret: string;
  /** AES-256-GCM key (base64) for secrets at rest: signing keys, TOTP seeds, webhook secrets, OAuth tokens. */
  encryptionKey: string;
}

/**
 * Secrets come from the environment. The all-in-one default may run without them: it then generates them
 * once and keeps them beside its data (mode 600), so a restart can still read what it encrypted.
 * Distributed deployments must set both (the Helm chart takes them from a Secret).
 */
export function loadSecrets(env: NodeJS.ProcessEnv, dataDir: string | undefined): RuntimeSecrets {
  if (env.INTERNAL_AUTH_SECRET && env.ENCRYPTION_KEY) {
    return { internalAuthSecret: env.INTERNAL_AUTH_SECRET, encryptionKey: env.ENCRYPTION_KEY };
  }
  if (!dataDir) throw new Error('INTERNAL_AUTH_SECRET and ENCRYPTION_KEY must be set');
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'secrets.json');
  let stored: Partial<RuntimeSecrets> = {};
  if (existsSync(file)) stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<RuntimeSecrets>;
  const secrets: RuntimeSecrets = {
    internalAuthSecret: env.INTERNAL_AUTH_SECRET ?? stored.internalAuthSecret ?? randomBytes(32).toString('base64url'),
    encryptionKey: env.ENCRYPTION_KEY ?? stored.encryptionKey ?? randomBytes(32).toString('base64'),
  };
  writeFileSync(file, JSON.stringify(secrets), { mode: 0o600 });
  chmodSync(file, 0o600);
  return secrets;
}
