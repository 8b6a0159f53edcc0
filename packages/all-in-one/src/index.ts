import { type Clock, createLogger, type Logger } from '@routinely/platform';
import { type RunningHost, startHost } from '@routinely/runtime';
import { SERVICE_MODULES } from './modules.js';

export { SERVICE_MODULES };

/** Every service in one process behind one listener (`npm start`, and the end-to-end tests). */
export function startAllInOne(options: {
  env: NodeJS.ProcessEnv;
  logger?: Logger;
  clock?: Clock;
}): Promise<RunningHost> {
  return startHost({
    modules: SERVICE_MODULES,
    env: options.env,
    logger: options.logger ?? createLogger({ name: 'all-in-one' }),
    ...(options.clock ? { clock: options.clock } : {}),
  });
}
