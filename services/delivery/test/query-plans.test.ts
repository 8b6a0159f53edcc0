// Scale check: with a million deliveries (and as many attempts-log rows) and fresh
// statistics, the hot queries of the delivery service walk indexes. It asserts plans, never times.
import { column, type Orm, openOrm, row, Sql } from '@routinely/db';
import { createTestDatabase } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { deliveryAttempts, endpointAttempts } from '../src/db/attempts-sql.js';
import {
  type ClaimRequest,
  claimDueReminders,
  claimFast,
  claimWebhooks,
  nextDeliveryDue,
  nextReminderDue,
  topUpEndpoint,
} from '../src/db/claim-sql.js';
import { ownerDeadLetters } from '../src/db/dead-letters-sql.js';
import { ownerDeliveries, ownerDelivery, recordFiring } from '../src/db/deliveries-sql.js';
import { dbConfig } from '../src/index.js';

const OWNERS = 1_000;
const DELIVERIES = 1_000_000;
const REMINDERS = 100_000;
const BIG_TABLES = ['deliveries', 'delivery_attempts', 'reminders', 'dead_letters'];

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
interface Sent {
  sql: string;
  bindings: readonly unknown[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

const planRow = row({ 'QUERY PLAN': column.json(z.array(z.object({ Plan: z.custom<PlanNode>() }))) });
const idRow = row({ id: column.uuid });

/**
 * A Sql handle for the functions of src/db that records each statement instead of running it: `Sql.of` over
 * an ORM whose only part is a knex whose pool hands out a connection that answers no rows. A statement is
 * recorded as sent (`$n` placeholders), which `real.rows` runs as it is.
 */
function recordingSql(sent: Sent[]): Sql {
  const connection = {
    query: async ({ text, values }: { text: string; values: readonly unknown[] }) => {
      sent.push({ sql: text, bindings: values });
      return { rows: [], rowCount: 0 };
    },
  };
  const knex = { client: { acquireConnection: async () => connection, releaseConnection: async () => {} } };
  return Sql.of({ em: { getKnex: () => knex } } as unknown as Orm);
}

/** The plans (every node) of the statements `run` sends, with the very parameters it sent. */
async function plansOf(real: Sql, run: (sql: Sql) => Promise<unknown>): Promise<PlanNode[][]> {
  const sent: Sent[] = [];
  await run(recordingSql(sent));
  expect(sent.length).toBeGreaterThan(0);
  const plans: PlanNode[][] = [];
  for (const statement of sent) {
    const [explained] = await real.rows(planRow, `explain (format json) ${statement.sql}`, statement.bindings);
    const plan = explained?.['QUERY PLAN'][0]?.Plan;
    if (!plan) throw new Error(`no plan for ${statement.sql}`);
    plans.push(nodesOf(plan));
  }
  return plans;
}

/** Sequential scans of the big tables in any of the plans, as "table" strings (so a failure names them). */
const bigSeqScans = (plans: PlanNode[][]) =>
  plans
    .flat()
    .filter((n) => n['Node Type'] === 'Seq Scan' && BIG_TABLES.includes(n['Relation Name'] ?? ''))
    .map((n) => n['Relation Name']);
const indexesUsed = (plans: PlanNode[][]) => plans.flat().flatMap((n) => (n['Index Name'] ? [n['Index Name']] : []));

describe(`query plans with ${DELIVERIES.toLocaleString('en')} deliveries`, () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let orm: Orm;
  /** The database with the million deliveries, where the recorded statements are explained. */
  let real: Sql;
  // Owner 7 of the generated ones: 1,000 deliveries over the three channels, one endpoint.
  const owner = { tenantId: 'tenant-7', userId: 'user-7' };
  let endpointId = '';
  let deliveryId = '';
  const now = new Date();

  beforeAll(async () => {
    db = await createTestDatabase();
    orm = await openOrm(db.url, dbConfig);
    real = Sql.of(orm);
    await real.run(
      `insert into webhook_endpoints (id, tenant_id, user_id, name, url, enabled, max_attempts, fallback_to_email,
         secret_sealed, secret_preview, consecutive_failures, circuit_open_until, created_at, updated_at, events)
       select md5('e' || n)::uuid, 'tenant-' || n, 'user-' || n, 'endpoint ' || n, 'https://example.test/' || n,
         true, 4, false, 'sealed', 'whsec_…', 0, null, now(), now(), null
       from generate_series(0, ? - 1) as n`,
      [OWNERS],
    );
    // 95 % sent, 2 % dead, 2 % failed (retry ahead), 1 % pending and due; a third each webhook, email, in-app.
    await real.run(
      `insert into deliveries (id, tenant_id, user_id, reminder_id, endpoint_id, channel, event, event_id, payload,
         secret_sealed, status, attempts, max_attempts, next_attempt_at, lease_until, lease_token, last_status_code,
         last_error, last_attempt_at, delivered_at, created_at, updated_at)
       select gen_random_uuid(), 'tenant-' || n % ?, 'user-' || n % ?, md5('r' || n / 3)::uuid,
         case when n % 3 = 0 then md5('e' || n % ?)::uuid end,
         (array['webhook','email','inapp'])[1 + n % 3], 'reminder.fired', gen_random_uuid(), '{}',
         null, s.status, 1, 4,
         case s.status when 'failed' then now() + interval '1 hour' when 'pending' then now() end,
         null, null, 200, null, now(), now(), now() - n * interval '1 second', now()
       from generate_series(0, ? - 1) as n,
         lateral (select case when n % 100 < 95 then 'sent' when n % 100 < 97 then 'dead'
                              when n % 100 < 99 then 'failed' else 'pending' end as status) s`,
      [OWNERS, OWNERS, OWNERS, DELIVERIES],
    );
    await real.run(
      `insert into delivery_attempts (id, tenant_id, user_id, delivery_id, endpoint_id, event, event_id, attempt, at,
         status_code, error, latency_ms)
       select gen_random_uuid(), tenant_id, user_id, id, endpoint_id, event, event_id, 1, created_at, 200, null, 12
       from deliveries`,
    );
    await real.run(
      `insert into dead_letters (id, tenant_id, user_id, delivery_id, reminder_id, endpoint_id, channel, reason,
         last_status_code, attempts, created_at)
       select gen_random_uuid(), tenant_id, user_id, id, reminder_id, endpoint_id, channel, 'receiver answered 410',
         410, 1, created_at
       from deliveries where status = 'dead'`,
    );
    // Reminders: 90 % fired, the rest scheduled, a hundred of them due now.
    await real.run(
      `insert into reminders (id, tenant_id, user_id, task_id, task, task_updated_at, task_version, channels,
         remind_at, status, reminder_set_at, fired_at, created_at, updated_at)
       select gen_random_uuid(), 'tenant-' || n % ?, 'user-' || n % ?, gen_random_uuid(), '{}', now(), 1,
         '["webhook"]', now() + (n - 1000) * interval '1 second', case when n % 10 = 0 then 'scheduled' else 'fired' end,
         now(), null, now(), now()
       from generate_series(0, ? - 1) as n`,
      [OWNERS, OWNERS, REMINDERS],
    );
    await real.run('analyze');
    endpointId = (await real.first(idRow, `select md5('e7')::uuid as id`))?.id ?? '';
    deliveryId =
      (
        await real.first(idRow, 'select id from deliveries where tenant_id = ? and user_id = ? limit 1', [
          owner.tenantId,
          owner.userId,
        ])
      )?.id ?? '';
  }, 240_000);

  afterAll(async () => {
    await orm?.close(true);
    await db?.drop();
  });

  const claim = (): ClaimRequest => ({
    now,
    leaseUntil: new Date(now.getTime() + 60_000),
    leaseToken: '00000000-0000-4000-8000-000000000000',
    limit: 200,
    perEndpoint: 2,
    perUser: 8,
    circuitThreshold: 5,
  });

  it('claims due reminders through the due index', async () => {
    const plans = await plansOf(real, (sql) => claimDueReminders(sql, now, 200));
    expect(bigSeqScans(plans)).toEqual([]);
    expect(indexesUsed(plans)).toContain('reminders_due_idx');
  });

  it('claims due in-app and email deliveries and webhook deliveries through the due index', async () => {
    for (const run of [claimFast, claimWebhooks]) {
      const plans = await plansOf(real, (sql) => run(sql, claim()));
      expect(bigSeqScans(plans)).toEqual([]);
      expect(indexesUsed(plans)).toContain('deliveries_due_idx');
    }
  });

  it('tops a held endpoint up through the due index and records a firing without scanning', async () => {
    const held = '00000000-0000-4000-8000-000000000001';
    const topUp = await plansOf(real, (sql) =>
      topUpEndpoint(sql, { ...claim(), endpointId: held, heldTokens: [claim().leaseToken] }),
    );
    expect(bigSeqScans(topUp)).toEqual([]);
    expect(indexesUsed(topUp)).toContain('deliveries_due_idx');
    const firing = await plansOf(real, (sql) => recordFiring(sql, [held], [], now, 'delivery_wakeup'));
    expect(bigSeqScans(firing)).toEqual([]);
  });

  it('finds the next due reminder and delivery without scanning', async () => {
    for (const run of [nextReminderDue, nextDeliveryDue]) {
      expect(bigSeqScans(await plansOf(real, (sql) => run(sql)))).toEqual([]);
    }
  });

  it('lists an owner’s deliveries through an owner index, with and without each filter', async () => {
    const page = { limit: 50, offset: 0 };
    for (const filter of [
      {},
      { status: 'dead' as const },
      { channel: 'webhook' as const },
      { status: 'sent' as const, channel: 'email' as const },
      { reminder_id: '00000000-0000-4000-8000-000000000001' },
      { event_id: '00000000-0000-4000-8000-000000000001' },
    ]) {
      const plans = await plansOf(real, (sql) => ownerDeliveries(sql, owner, filter, page));
      expect(bigSeqScans(plans), JSON.stringify(filter)).toEqual([]);
    }
    const detail = await plansOf(real, (sql) => ownerDelivery(sql, owner, deliveryId));
    expect(bigSeqScans(detail)).toEqual([]);
  });

  it('lists dead letters through the owner index', async () => {
    const plans = await plansOf(real, (sql) => ownerDeadLetters(sql, owner, { limit: 50, offset: 0 }));
    expect(bigSeqScans(plans)).toEqual([]);
    expect(indexesUsed(plans)).toContain('dead_letters_owner_idx');
  });

  it('reads the attempts of a delivery and of an endpoint through their indexes', async () => {
    const ofDelivery = await plansOf(real, (sql) => deliveryAttempts(sql, owner, deliveryId));
    expect(bigSeqScans(ofDelivery)).toEqual([]);
    expect(indexesUsed(ofDelivery)).toContain('delivery_attempts_delivery_idx');
    const page = { limit: 50, offset: 0 };
    const ofEndpoint = await plansOf(real, (sql) => endpointAttempts(sql, owner, endpointId, page));
    expect(bigSeqScans(ofEndpoint)).toEqual([]);
    expect(indexesUsed(ofEndpoint)).toContain('delivery_attempts_endpoint_idx');
  });
});
