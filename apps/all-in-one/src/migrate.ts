#!/usr/bin/env node
// Applies the migrations of the named services (all six without arguments) and exits: the Helm chart runs it
// in its migration Job (`migrate.js`) or in each pod's init container (`migrate.js <svc>`), and the services
// then start with MIGRATE_ON_START=false. Usage: node apps/all-in-one/dist/migrate.js [service...]
import { createLogger, logLevelFrom, SERVICE_NAMES } from '@routinely/platform';
import { migrateServices, reasonsOf } from '@routinely/runtime';
import { SERVICE_MODULES } from './modules.js';

const names = process.argv.slice(2);
const unknown = names.filter((name) => !(SERVICE_NAMES as readonly string[]).includes(name));
const log = createLogger({ name: 'migrate', level: logLevelFrom(process.env) });
if (unknown.length > 0) {
  log.fatal(`unknown service(s): ${unknown.join(', ')}; expected some of ${SERVICE_NAMES.join(', ')}`);
  process.exit(2);
}
const modules = names.length > 0 ? SERVICE_MODULES.filter((m) => names.includes(m.name)) : SERVICE_MODULES;
try {
  await migrateServices({ modules, env: process.env, logger: log });
} catch (error) {
  log.fatal({ err: error }, `migrations failed: ${reasonsOf(error)}`);
  process.exit(1);
}
