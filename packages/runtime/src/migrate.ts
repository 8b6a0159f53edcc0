import type { Orm } from '@routinely/db';
import { applyMigrations, openOrm, pendingMigrations, serviceDatabaseUrl } from '@routinely/db';
import type { Logger } from '@routinely/platform';
import { loadSecrets } from './secrets.js';
import type { ServiceModule } from './service-module.js';

/**
 * With MIGRATE_ON_START=false a host must not serve on a schema older than its code: it fails start-up
 * (the pod restarts with back-off) until the migration Job or init container has applied them.
 */
export async function checkNoPendingMigrations(service: string, orm: Orm): Promise<void> {
  const pending = await pendingMigrations(orm);
  if (pending.length > 0) {
    throw new Error(
      `${service}: ${pending.length} migration(s) not applied (${pending.join(', ')}) and MIGRATE_ON_START=false; ` +
        'run the migrate entry point (the chart does it in a Job or init container)',
    );
  }
}

/**
 * The `migrate` entry point's body: for each module, the same role provisioning as a host start, then its
 * pending migrations under the schema's advisory lock, then nothing else (no listener, gRPC, consumers or
 * workers). Needs DATABASE_URL, INTERNAL_AUTH_SECRET and ENCRYPTION_KEY, as a distributed service does.
 * Returns the migrations applied per service.
 */
export async function migrateServices(options: {
  modules: readonly ServiceModule[];
  env: NodeJS.ProcessEnv;
  logger: Logger;
}): Promise<Record<string, string[]>> {
  const adminUrl = options.env.DATABASE_URL;
  if (!adminUrl) throw new Error('DATABASE_URL must be set to apply migrations');
  const secrets = loadSecrets(options.env, undefined);
  const applied: Record<string, string[]> = {};
  for (const module of options.modules) {
    const url = await serviceDatabaseUrl(adminUrl, module.dbConfig.schema, secrets.internalAuthSecret, options.logger);
    const orm = await openOrm(url, module.dbConfig, { migrate: false, poolMax: 2 });
    try {
      applied[module.name] = await applyMigrations(orm, url);
    } finally {
      await orm.close();
    }
    options.logger.info({ svc: module.name, applied: applied[module.name] }, 'migrations applied');
  }
  return applied;
}
