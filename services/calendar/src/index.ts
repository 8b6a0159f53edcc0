export { buildService, type CalendarServiceDeps } from './app.js';
export { type CalendarConfig, configSchema } from './config.js';
export { dbConfig } from './db/config.js';
export type { DirectoryUser, UserDirectory } from './domain/user-directory.js';
export { AuthUserDirectory } from './grpc/auth-user-directory.js';
export { calendarModule } from './module.js';
