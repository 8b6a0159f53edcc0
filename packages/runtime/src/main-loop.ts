import { createLogger, type Logger, logLevelFrom } from '@routinely/platform';
import { type RunningHost, startHost } from './host.js';
import type { ServiceModule } from './service-module.js';

/**
 * The body of every entry point: start the host, then on SIGINT/SIGTERM close it gracefully (listener first,
 * then workers, gRPC, databases, embedded PostgreSQL) and exit.
 */
export async function runUntilSignal(name: string, modules: readonly ServiceModule[], logger?: Logger): Promise<void> {
  let log: Logger;
  try {
    log = logger ?? createLogger({ name, level: logLevelFrom(process.env) });
  } catch (error) {
    process.stderr.write(`${name}: ${(error as Error).message}\n`);
    process.exit(1);
  }
  let running: RunningHost;
  try {
    running = await startHost({ modules, env: process.env, logger: log });
  } catch (error) {
    log.fatal({ err: error }, 'failed to start');
    process.exit(1);
  }
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 20_000);
    force.unref();
    await running.close();
    log.info('stopped');
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void shutdown(signal));
}
