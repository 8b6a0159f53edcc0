import { type DestinationStream, type Logger, pino } from 'pino';
import { z } from 'zod';
import { logLevelSchema, parseConfig } from './config.js';

export type { Logger };

/**
 * LOG_LEVEL, checked before any logger exists: pino's own error for an unknown level names neither the
 * variable nor the allowed values. Throws the same "Invalid configuration" error as every other variable.
 */
export function logLevelFrom(env: NodeJS.ProcessEnv): string {
  return parseConfig(z.object({ LOG_LEVEL: logLevelSchema }), env).LOG_LEVEL;
}

/** `destination` defaults to stdout; tests pass one to read the lines back. */
export function createLogger(options: { level?: string; name?: string; destination?: DestinationStream } = {}): Logger {
  const settings = {
    level: options.level ?? logLevelFrom(process.env),
    base: options.name ? { svc: options.name } : {},
    timestamp: pino.stdTimeFunctions.isoTime,
    // Credentials never reach the logs, whichever way a request carried them.
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'password',
        'new_password',
        'current_password',
        'refresh_token',
        'access_token',
        'secret',
      ],
      censor: '[redacted]',
    },
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}
