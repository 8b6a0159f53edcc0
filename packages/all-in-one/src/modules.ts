import { authModule } from '@routinely/auth';
import { calendarModule } from '@routinely/calendar';
import { deliveryModule } from '@routinely/delivery';
import { integrationModule } from '@routinely/integration';
import type { ServiceModule } from '@routinely/runtime';
import { taskModule } from '@routinely/task';

/**
 * Every service the all-in-one process runs, auth first (the others ask it for keys and users). The
 * scheduler service does not exist yet; its routes answer 404.
 */
export const SERVICE_MODULES: ServiceModule[] = [
  authModule,
  calendarModule,
  taskModule,
  deliveryModule,
  integrationModule,
];
