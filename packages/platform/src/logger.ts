import { type Logger, pino } from 'pino';

export type { Logger };

export function createLogger(options: { level?: string; name?: string } = {}): Logger {
  return pino({
    level: options.level ?? process.env.LOG_LEVEL ?? 'info',
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
  });
}
