import { type DestinationStream, type Logger, pino } from 'pino';

export type { Logger };

/** `destination` defaults to stdout; tests pass one to read the lines back. */
export function createLogger(options: { level?: string; name?: string; destination?: DestinationStream } = {}): Logger {
  const settings = {
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
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}
