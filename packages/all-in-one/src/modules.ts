import { authModule } from '@routinely/auth';
import { calendarModule } from '@routinely/calendar';
import { deliveryModule } from '@routinely/delivery';
import { integrationModule } from '@routinely/integration';
import type { ServiceModule } from '@routinely/runtime';
import { schedulerModule } from '@routinely/scheduler';
import { taskModule } from '@routinely/task';

/**
 * Every service the all-in-one process runs, auth first (the others ask it for keys and users), the scheduler
 * before task (task asks it for import quotas).
 */
export const SERVICE_MODULES: ServiceModule[] = [
  authModule,
  calendarModule,
  schedulerModule,
  taskModule,
  deliveryModule,
  integrationModule,
];
