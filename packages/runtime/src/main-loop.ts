import { createLogger, type Logger, logLevelFrom } from '@routinely/platform';
import { type RunningHost, startHost } from './host.js';
import type { ServiceModule } from './service-module.js';
import { startTracing, type Tracing } from './tracing.js';

export interface MainOptions {
  logger?: Logger;
  /** Environment defaults of this entry point, under the process environment (the all-in-one's drain of 0). */
  envDefaults?: Record<string, string>;
  /** Serve the web console at `/` too (the all-in-one). */
  console?: boolean;
}

/**
 * The body of every entry point: start tracing (when configured) and the host, then on SIGINT/SIGTERM close
 * it gracefully (readiness drained, listener, then workers, gRPC, databases, embedded PostgreSQL) and exit.
 */
export async function runUntilSignal(
  name: string,
  modules: readonly ServiceModule[],
  options: MainOptions = {},
): Promise<void> {
  const env = { ...options.envDefaults, ...process.env };
  let log: Logger;
  try {
    log = options.logger ?? createLogger({ name, level: logLevelFrom(env) });
  } catch (error) {
    process.stderr.write(`${name}: ${(error as Error).message}\n`);
    process.exit(1);
  }
  let running: RunningHost;
  let tracing: Tracing | undefined;
  try {
    tracing = await startTracing({ env, serviceName: modules.length === 1 ? `routinely-${name}` : 'routinely' });
    if (tracing) log.info('tracing exports spans over OTLP');
    running = await startHost({ modules, env, logger: log, ...(options.console ? { console: true } : {}) });
  } catch (error) {
    log.fatal({ err: error }, `failed to start: ${reasonsOf(error)}`);
    await tracing?.shutdown().catch(() => {});
    process.exit(1);
  }
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const drainMs = Number(env.SHUTDOWN_DRAIN_MS ?? 5_000) || 0;
    const force = setTimeout(() => process.exit(1), drainMs + 20_000);
    force.unref();
    await running.close();
    await tracing?.shutdown().catch((error) => log.warn({ err: error }, 'trace export failed at shutdown'));
    log.info('stopped');
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void shutdown(signal));
}

/** The error's message and those of its causes, so the one fatal line says why (at the default log level). */
export function reasonsOf(error: unknown): string {
  const reasons: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    const message = current instanceof Error ? current.message : typeof current === 'string' ? current : undefined;
    if (message && !reasons.some((r) => r.includes(message))) reasons.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return reasons.length > 0 ? reasons.join('; caused by: ') : String(error);
}
