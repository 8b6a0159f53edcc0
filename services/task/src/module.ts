import type { ServiceModule } from '@routinely/runtime';
import { buildService } from './app.js';
import { loadConfig } from './config.js';
import { dbConfig } from './db/config.js';

/** How a host (the all-in-one or this service's own main) builds the task service. */
export const taskModule: ServiceModule = {
  name: 'task',
  dbConfig,
  build: async (ctx) =>
    buildService({
      config: loadConfig(ctx.env),
      logger: ctx.logger,
      clock: ctx.clock,
      orm: ctx.orm,
      transport: ctx.transport,
      internalAuth: ctx.internalAuth,
    }),
};
