// SCALE=1 for ratios.ts: the same ratios with 100k tasks and 1M deliveries in the tables.
// Seeds other owners' rows straight into the all-in-one's schemas once its migrations ran, then ANALYZEs,
// so the bench user's reads and writes find their rows among many. The shapes follow the plan tests
// (services/task/test/query-plans.test.ts, services/delivery/test/query-plans.test.ts), with one difference:
// nothing seeded is due, so the workers have nothing of it to send while the rows are measured.
import pg from 'pg';

const OWNERS = 1_000;
const TASKS = 100_000;
const DELIVERIES = 1_000_000;
const REMINDERS = 100_000;

/** Inserts the rows; returns the counts found afterwards and the seconds it took. */
export async function seedAtScale(databaseUrl: string): Promise<Record<string, unknown>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const started = performance.now();
  try {
    await client.query(
      `insert into task.tasks (id, tenant_id, user_id, parent_task_id, depth, sort_order, title, status, priority,
         duration_min, reminder_channels, reminder_offset_min, tags, created_at, updated_at)
       select gen_random_uuid(), md5('t' || (n / $1))::uuid, md5('u' || (n / $1))::uuid, null, 1, n % $1,
         'task ' || n, (array['pending','scheduled','done'])[1 + n % 3], 3, 30, '{inapp}', 10, '{}', now(), now()
       from generate_series(0, $2 - 1) as n`,
      [TASKS / OWNERS, TASKS],
    );
    await client.query(
      `insert into delivery.webhook_endpoints (id, tenant_id, user_id, name, url, enabled, max_attempts,
         fallback_to_email, secret_sealed, secret_preview, consecutive_failures, circuit_open_until, created_at,
         updated_at, events)
       select md5('e' || n)::uuid, 'tenant-' || n, 'user-' || n, 'endpoint ' || n, 'https://example.test/' || n,
         true, 4, false, 'sealed', 'whsec_…', 0, null, now(), now(), null
       from generate_series(0, $1 - 1) as n`,
      [OWNERS],
    );
    // Settled deliveries only (97 % sent, 3 % dead): a pending or failed one would be sent during the run.
    await client.query(
      `insert into delivery.deliveries (id, tenant_id, user_id, reminder_id, endpoint_id, channel, event, event_id,
         payload, secret_sealed, status, attempts, max_attempts, next_attempt_at, lease_until, lease_token,
         last_status_code, last_error, last_attempt_at, delivered_at, created_at, updated_at)
       select gen_random_uuid(), 'tenant-' || n % $1, 'user-' || n % $1, md5('r' || n / 3)::uuid,
         case when n % 3 = 0 then md5('e' || n % $1)::uuid end,
         (array['webhook','email','inapp'])[1 + n % 3], 'reminder.fired', gen_random_uuid(), '{}', null,
         case when n % 100 < 97 then 'sent' else 'dead' end, 1, 4, null, null, null, 200, null, now(), now(),
         now() - n * interval '1 second', now()
       from generate_series(0, $2 - 1) as n`,
      [OWNERS, DELIVERIES],
    );
    await client.query(
      `insert into delivery.delivery_attempts (id, tenant_id, user_id, delivery_id, endpoint_id, event, event_id,
         attempt, at, status_code, error, latency_ms)
       select gen_random_uuid(), tenant_id, user_id, id, endpoint_id, event, event_id, 1, created_at, 200, null, 12
       from delivery.deliveries`,
    );
    await client.query(
      `insert into delivery.dead_letters (id, tenant_id, user_id, delivery_id, reminder_id, endpoint_id, channel,
         reason, last_status_code, attempts, created_at)
       select gen_random_uuid(), tenant_id, user_id, id, reminder_id, endpoint_id, channel, 'receiver answered 410',
         410, 1, created_at
       from delivery.deliveries where status = 'dead'`,
    );
    // Reminders: 90 % fired, the rest scheduled a year ahead.
    await client.query(
      `insert into delivery.reminders (id, tenant_id, user_id, task_id, task, task_updated_at, task_version,
         channels, remind_at, status, reminder_set_at, fired_at, created_at, updated_at)
       select gen_random_uuid(), 'tenant-' || n % $1, 'user-' || n % $1, gen_random_uuid(), '{}', now(), 1,
         '["webhook"]', now() + interval '365 days' + n * interval '1 second',
         case when n % 10 = 0 then 'scheduled' else 'fired' end, now(), null, now(), now()
       from generate_series(0, $2 - 1) as n`,
      [OWNERS, REMINDERS],
    );
    await client.query('analyze');
    const count = async (table: string) => Number((await client.query(`select count(*) as n from ${table}`)).rows[0].n);
    return {
      title: 'seeded at scale',
      tasks: await count('task.tasks'),
      deliveries: await count('delivery.deliveries'),
      delivery_attempts: await count('delivery.delivery_attempts'),
      reminders: await count('delivery.reminders'),
      seconds: Math.round((performance.now() - started) / 1000),
    };
  } finally {
    await client.end();
  }
}
