/**
 * The setup file of the unit tier: a unit test needs no infrastructure, so none is offered. With the URLs unset,
 * a test that reaches for PostgreSQL, NATS or Redis through the testkit fails at once with the variable's name
 * (`requireEnv`) instead of passing only on machines where the servers happen to run.
 */
for (const name of ['DATABASE_URL', 'REDIS_URL', 'NATS_URL']) delete process.env[name];
