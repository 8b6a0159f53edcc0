export { buildService, type CalendarServiceDeps } from './app.js';
export { type CalendarConfig, configSchema } from './config.js';
export { dbConfig } from './db/config.js';
export { calendarModule } from './module.js';
