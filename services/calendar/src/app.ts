import { databaseReady, Sql } from '@routinely/db';
import { OutboxRelay } from '@routinely/events';
import { backgroundOf, type ServiceInstance } from '@routinely/platform';
import type { ServiceDeps } from '@routinely/runtime';
import type { FastifyPluginAsync } from 'fastify';
import { AuthUserDirectory } from './adapters/auth-user-directory.js';
import type { CalendarConfig } from './config.js';
import { CalendarService } from './domain/calendars.js';
import type { CalendarContext } from './domain/context.js';
import { ItemService } from './domain/items.js';
import { SharingService } from './domain/sharing.js';
import type { UserDirectory } from './domain/user-directory.js';
import { calendarRoutes } from './http/calendars/routes.js';
import { itemRoutes } from './http/items/routes.js';
import { sharingRoutes } from './http/sharing/routes.js';

/** What every host gives a service (the context of @routinely/runtime), and the test doubles this root accepts. */
export type CalendarServiceDeps = ServiceDeps<CalendarConfig> & {
  /** Who the users of a tenant are; defaults to the auth service's LookupUser over gRPC. */
  userDirectory?: UserDirectory;
};

/** What the calendar service's routes call while answering. */
export interface CalendarApi {
  calendars: CalendarService;
  items: ItemService;
  sharing: SharingService;
}

/** The calendar service's API routes, written after the mount (module.ts documents them with `api` never used). */
export function apiRoutes(api: CalendarApi): FastifyPluginAsync {
  return async (app) => {
    await app.register(calendarRoutes(api.calendars));
    await app.register(itemRoutes(api.items));
    await app.register(sharingRoutes(api.sharing));
  };
}

/** Composition root of the calendar service: shared calendars, their items and per-user sharing. */
export function buildService(deps: CalendarServiceDeps): ServiceInstance {
  const logger = deps.logger.child({ svc: 'calendar' });
  const ownsDirectory = !deps.userDirectory;
  const userDirectory =
    deps.userDirectory ??
    new AuthUserDirectory(deps.grpcAddress('auth'), deps.internalAuth, deps.config.CALENDAR_LOOKUP_DEADLINE_MS);
  const db = Sql.of(deps.orm);
  const relay = new OutboxRelay({
    db,
    transport: deps.transport,
    logger,
    pollMs: deps.config.CALENDAR_OUTBOX_POLL_MS,
  });
  const ctx: CalendarContext = { db, clock: deps.clock, relay, userDirectory, config: deps.config };
  const calendars = new CalendarService(ctx);
  const items = new ItemService(ctx);
  const sharing = new SharingService(ctx);

  return {
    name: 'calendar',
    routes: apiRoutes({ calendars, items, sharing }),
    readiness: {
      database: () => databaseReady(deps.orm),
    },
    ...backgroundOf([{ stop: () => (ownsDirectory ? userDirectory.close?.() : undefined) }, relay]),
  };
}
