import { type Clock, createLogger, type Logger } from '@routinely/platform';
import { type RunningHost, startHost } from '@routinely/runtime';
import { SERVICE_MODULES } from './modules.js';

export { SERVICE_MODULES };

/**
 * The all-in-one runs behind no load balancer: nothing to drain on shutdown unless asked
 * (SHUTDOWN_DRAIN_MS), so Ctrl-C stops it at once.
 */
export const ALL_IN_ONE_ENV_DEFAULTS = { SHUTDOWN_DRAIN_MS: '0' };

/** Every service in one process behind one listener (`npm start`, and the end-to-end tests). */
export function startAllInOne(options: {
  env: NodeJS.ProcessEnv;
  logger?: Logger;
  clock?: Clock;
}): Promise<RunningHost> {
  return startHost({
    modules: SERVICE_MODULES,
    env: { ...ALL_IN_ONE_ENV_DEFAULTS, ...options.env },
    logger: options.logger ?? createLogger({ name: 'all-in-one' }),
    console: true,
    ...(options.clock ? { clock: options.clock } : {}),
  });
}
export { configVariables, renderConfigReference } from './config-reference.js';
export { renderOpenApiDocument } from './openapi-document.js';
