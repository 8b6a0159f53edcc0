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
  if (existsSync(file)) {
    try {
      stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<RuntimeSecrets>;
    } catch (error) {
      throw new Error(
        `${file} is not readable JSON (${(error as Error).message}); restore it from a backup, or set ENCRYPTION_KEY ` +
          'and INTERNAL_AUTH_SECRET to the values it held',
        { cause: error },
      );
    }
  } else if (!env.ENCRYPTION_KEY && existsSync(join(dataDir, 'postgres', 'PG_VERSION'))) {
    // A new key would make every secret sealed with the lost one (signing keys, TOTP seeds) unreadable.
    throw new Error(
      `${file} is missing but ${join(dataDir, 'postgres')} holds data sealed with the key it contained. ` +
        'Restore secrets.json from a backup (or set ENCRYPTION_KEY and INTERNAL_AUTH_SECRET to its values); ' +
        `to start over without that data, move ${dataDir} aside.`,
    );
  }
  const secrets: RuntimeSecrets = {
    internalAuthSecret: env.INTERNAL_AUTH_SECRET ?? stored.internalAuthSecret ?? randomBytes(32).toString('base64url'),
    encryptionKey: env.ENCRYPTION_KEY ?? stored.encryptionKey ?? randomBytes(32).toString('base64'),
  };
  writeFileSync(file, JSON.stringify(secrets), { mode: 0o600 });
  chmodSync(file, 0o600);
  return secrets;
}
