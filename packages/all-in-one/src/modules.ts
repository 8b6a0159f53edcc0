import { authModule } from '@routinely/auth';
import { calendarModule } from '@routinely/calendar';
import type { ServiceModule } from '@routinely/runtime';
import { taskModule } from '@routinely/task';

/** Every service the all-in-one process runs, auth first (the others ask it for keys and users). */
export const SERVICE_MODULES: ServiceModule[] = [authModule, calendarModule, taskModule];
