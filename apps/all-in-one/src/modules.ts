import { authModule } from '@routinely/auth';
import { calendarModule } from '@routinely/calendar';
import { deliveryModule } from '@routinely/delivery';
import { integrationModule } from '@routinely/integration';
import type { ServiceModule } from '@routinely/runtime';
import { schedulerModule } from '@routinely/scheduler';
import { taskModule } from '@routinely/task';

/**
 * Every service the all-in-one process runs, each after the services it calls (their gRPC addresses are known
 * once they started): auth first (the others ask it for keys and users); task after delivery and integration
 * (dashboard figures and admin health); the scheduler last, after task (runs, import quotas). Calls go one way.
 */
export const SERVICE_MODULES: ServiceModule[] = [
  authModule,
  calendarModule,
  deliveryModule,
  integrationModule,
  taskModule,
  schedulerModule,
];
