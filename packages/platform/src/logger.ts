import { type DestinationStream, type Logger, pino } from 'pino';
import { z } from 'zod';
import { logLevelSchema, parseConfig } from './config.js';
import { safeError } from './log-safety.js';

export type { Logger };

/**
 * LOG_LEVEL, checked before any logger exists: pino's own error for an unknown level names neither the
 * variable nor the allowed values. Throws the same "Invalid configuration" error as every other variable.
 */
export function logLevelFrom(env: NodeJS.ProcessEnv): string {
  return parseConfig(z.object({ LOG_LEVEL: logLevelSchema }), env).LOG_LEVEL;
}

const SECRET_KEYS = [
  'password',
  'new_password',
  'current_password',
  'password_hash',
  'refresh_token',
  'access_token',
  'id_token',
  'sso_token',
  'mfa_token',
  'invite_token',
  'token',
  'secret',
  'client_secret',
  'backup_codes',
  'sql',
  'parameters',
  'bindings',
];
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-idp-signature"]',
  'headers.authorization',
  'headers.cookie',
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((key) => `*.${key}`),
];

/** `destination` defaults to stdout; tests pass one to read the lines back. */
export function createLogger(options: { level?: string; name?: string; destination?: DestinationStream } = {}): Logger {
  const settings = {
    level: options.level ?? logLevelFrom(process.env),
    base: options.name ? { svc: options.name } : {},
    timestamp: pino.stdTimeFunctions.isoTime,
    // Credentials never reach the logs, whichever way a request carried them: top level or one level down.
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // Errors lose SQL statements, bind values and quoted values (log-safety.ts) under every usual key.
    serializers: { err: safeError, error: safeError, cause: safeError },
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}
