import { authModule } from '@routinely/auth';
import { calendarModule } from '@routinely/calendar';
import { deliveryModule } from '@routinely/delivery';
import { integrationModule } from '@routinely/integration';
import type { ServiceModule } from '@routinely/runtime';
import { schedulerModule } from '@routinely/scheduler';
import { taskModule } from '@routinely/task';

/**
 * Every service the all-in-one process runs, auth first (the others ask it for keys and users); task last, after
 * the scheduler (import quotas), delivery and integration (dashboard figures and admin health), whose gRPC
 * addresses it needs at start.
 */
export const SERVICE_MODULES: ServiceModule[] = [
  authModule,
  calendarModule,
  schedulerModule,
  deliveryModule,
  integrationModule,
  taskModule,
];
