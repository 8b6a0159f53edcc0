#!/usr/bin/env node
// `npm start`: every service in one process behind one listener.
import { createLogger } from '@routinely/platform';
import { startAllInOne } from './compose.js';

const logger = createLogger({ name: 'all-in-one' });
try {
  const running = await startAllInOne({ env: process.env, logger });
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 20_000);
    force.unref();
    await running.close();
    logger.info('stopped');
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void shutdown(signal));
} catch (error) {
  logger.fatal({ err: error }, 'failed to start');
  process.exit(1);
}
