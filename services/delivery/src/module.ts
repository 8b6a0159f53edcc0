import { parseConfig } from '@routinely/platform';
import type { ServiceModule } from '@routinely/runtime';
import { buildService } from './app.js';
import { configSchema } from './config.js';
import { dbConfig } from './db/config.js';

/** How a host (the all-in-one or this service's own main) builds the delivery service. */
export const deliveryModule: ServiceModule = {
  name: 'delivery',
  dbConfig,
  build: async (ctx) =>
    buildService({
      config: parseConfig(configSchema, ctx.env),
      logger: ctx.logger,
      clock: ctx.clock,
      orm: ctx.orm,
      transport: ctx.transport,
      internalAuth: ctx.internalAuth,
    }),
};
