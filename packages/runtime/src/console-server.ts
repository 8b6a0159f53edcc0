import {
  AppError,
  allowedOriginsFrom,
  createHttpApp,
  createLogger,
  type Logger,
  logLevelFrom,
  parseConfig,
  registerHealth,
} from '@routinely/platform';
import type { FastifyInstance } from 'fastify';
import { consoleConfigSchema, DEFAULT_CONSOLE_DIR, registerConsole } from './console.js';
import { hostConfigSchema } from './host-config.js';
import { reasonsOf } from './main-loop.js';

export interface RunningConsole {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

/** The console process answers no API route, so no token is ever checked here. */
const noTokens = async (): Promise<never> => {
  throw new AppError('not_authenticated', 'This process serves the web console only');
};

/**
 * The web console alone, for the shapes where the gateway routes `/` to it (distributed, Helm; ADR 101): the
 * same files, headers and fallback as the all-in-one's, and the probes of a pod. No database, no services.
 */
export async function startConsoleServer(options: { env: NodeJS.ProcessEnv; logger: Logger }): Promise<RunningConsole> {
  const config = parseConfig(hostConfigSchema, options.env);
  const { CONSOLE_DIR } = parseConfig(consoleConfigSchema, options.env);
  let draining = false;
  const app = await createHttpApp({
    logger: options.logger,
    verifyToken: noTokens,
    trustProxy: config.TRUST_PROXY,
    allowedOrigins: allowedOriginsFrom(config),
  });
  registerHealth(app, {}, { draining: () => draining });
  await registerConsole(app, { dir: CONSOLE_DIR ?? DEFAULT_CONSOLE_DIR });
  await app.listen({ port: config.PORT, host: config.HOST });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : config.PORT}`;
  options.logger.info({ url, dir: CONSOLE_DIR ?? DEFAULT_CONSOLE_DIR }, 'the web console is listening');
  return {
    app,
    url,
    close: async () => {
      draining = true;
      if (config.SHUTDOWN_DRAIN_MS > 0) await new Promise((resolve) => setTimeout(resolve, config.SHUTDOWN_DRAIN_MS));
      await app.close();
    },
  };
}

/** `node apps/all-in-one/dist/console.js`: the console process until SIGINT/SIGTERM, then a drained stop. */
export async function runConsoleUntilSignal(): Promise<void> {
  const log = createLogger({ name: 'console', level: logLevelFrom(process.env) });
  let running: RunningConsole;
  try {
    running = await startConsoleServer({ env: process.env, logger: log });
  } catch (error) {
    log.fatal({ err: error }, `failed to start: ${reasonsOf(error)}`);
    process.exit(1);
  }
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      void running.close().then(() => process.exit(0));
    });
  }
}
