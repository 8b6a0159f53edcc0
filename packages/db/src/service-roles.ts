import { createHmac } from 'node:crypto';
import pg from 'pg';

/**
 * Gives each service its own PostgreSQL role owning its own schema and nothing else, and returns the URL
 * the service connects with. The configured DATABASE_URL is only used to create roles. Where that user may
 * not create roles (some managed databases), services fall back to the configured URL with a warning.
 */
export async function serviceDatabaseUrl(
  adminUrl: string,
  schema: string,
  secret: string,
  logger: { warn(fields: object, message: string): void },
): Promise<string> {
  const role = `routinely_${schema}`;
  const password = createHmac('sha256', secret).update(`db-role:${schema}`).digest('base64url');
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ rolcreaterole: boolean; rolsuper: boolean }>(
      'select rolcreaterole, rolsuper from pg_roles where rolname = current_user',
    );
    if (!rows[0]?.rolcreaterole && !rows[0]?.rolsuper) {
      logger.warn({ schema }, 'database user cannot create roles; the service uses the configured user');
      return adminUrl;
    }
    await withRetryOnRace(() => provisionRole(client, role, password, schema));
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.username = role;
  url.password = password;
  return url.toString();
}

/**
 * Roles are cluster-wide and catalog DDL is not serialised by PostgreSQL: hosts starting together (replicas,
 * parallel tests, even on different databases) can collide with "tuple concurrently updated" or a duplicate
 * role. Advisory locks are per database, so the idempotent provisioning is simply tried again.
 */
async function withRetryOnRace(work: () => Promise<void>): Promise<void> {
  const RACES = new Set(['XX000', '23505', '42710', '40001']);
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (attempt >= 8 || !code || !RACES.has(code)) throw error;
      await new Promise((r) => setTimeout(r, 20 * attempt + Math.random() * 50));
    }
  }
}

async function provisionRole(client: pg.Client, role: string, password: string, schema: string): Promise<void> {
  const exists = await client.query('select 1 from pg_roles where rolname = $1', [role]);
  const quotedPassword = client.escapeLiteral(password);
  await client.query(
    exists.rowCount
      ? `alter role "${role}" with login password ${quotedPassword}`
      : `create role "${role}" with login password ${quotedPassword}`,
  );
  await client.query(`create schema if not exists "${schema}" authorization "${role}"`);
  await client.query(`alter schema "${schema}" owner to "${role}"`);
  // The role's own default as well as each pool's startup option (search-path.ts): a connection opened with the
  // service's URL by anything else (a LISTEN connection, an operator's psql) still sees only its schema.
  await client.query(`alter role "${role}" set search_path = "${schema}"`);
  await client.query(`grant all on all tables in schema "${schema}" to "${role}"`);
  await client.query(`grant all on all sequences in schema "${schema}" to "${role}"`);
  const { rows } = await client.query<{ name: string }>('select current_database() as name');
  await client.query(`grant connect on database "${String(rows[0]?.name)}" to "${role}"`);
}
