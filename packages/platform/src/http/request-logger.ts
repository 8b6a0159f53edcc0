import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString, Logger } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type LogArgs = [object | string, ...unknown[]];

/**
 * A request's logger that becomes pino's child (bound to the request id) only when the request writes a line
 * at a level the parent logs. Pino builds a child by running its redaction over the bindings, about 4 % of a
 * single-row read's CPU, and at `LOG_LEVEL=warn` a request that succeeds writes nothing: fastify's
 * default made that child for every request anyway. What is written is the same line the eager child wrote.
 */
class DeferredRequestLogger {
  private bound: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
  ) {}

  get level(): LevelWithSilentOrString {
    return (this.bound ?? this.parent).level;
  }

  set level(level: LevelWithSilentOrString) {
    this.child_().level = level;
  }

  fatal(...args: LogArgs): void {
    this.write('fatal', args);
  }
  error(...args: LogArgs): void {
    this.write('error', args);
  }
  warn(...args: LogArgs): void {
    this.write('warn', args);
  }
  info(...args: LogArgs): void {
    this.write('info', args);
  }
  debug(...args: LogArgs): void {
    this.write('debug', args);
  }
  trace(...args: LogArgs): void {
    this.write('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.child_().child(bindings, options);
  }

  isLevelEnabled(level: string): boolean {
    return (this.bound ?? this.parent).isLevelEnabled(level);
  }

  private child_(): Logger {
    this.bound ??= this.parent.child(this.bindings);
    return this.bound;
  }

  private write(level: Level, args: LogArgs): void {
    // Once the child exists (a line written, or its level set) it decides; until then the parent does.
    if (this.bound || this.parent.isLevelEnabled(level)) (this.child_()[level] as (...a: LogArgs) => void)(...args);
  }
}

/**
 * fastify's `childLoggerFactory`: deferred for routes that log at the app's level; a route with its own log
 * level (fastify passes it in `options`) gets pino's child at once, as before.
 */
export function requestLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  const pinoLogger = logger as unknown as Logger;
  if (options.level !== undefined || options.serializers !== undefined || !('isLevelEnabled' in pinoLogger)) {
    return logger.child(bindings, options);
  }
  return new DeferredRequestLogger(pinoLogger, bindings) as unknown as FastifyBaseLogger;
}
