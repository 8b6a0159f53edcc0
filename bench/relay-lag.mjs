// Relay lag under the create load of ratios.mjs, read from the rows the run left behind:
// for every task.created event of the create row (title 'ratios create'), the time from the event's
// occurred_at (taken when the create starts, just before its transaction, so it includes the insert and the
// commit) to the relay retiring its outbox row (published_at: after JetStream acked it), and to the
// reminders consumer's inbox row (processed_at = now() of its transaction, i.e. when handling began).
// Enabled in ratios.mjs with RELAY_LAG=1; it runs right after the create row, so the backlog it prints first
// is what the relay and the consumer still had to do when the load stopped.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { cpuMsOf } from './proc-cpu.mjs';

const testkitRequire = createRequire(new URL('../packages/testkit/package.json', import.meta.url));
const { default: pg } = await import(pathToFileURL(testkitRequire.resolve('pg')).href);

const EVENTS = `task.outbox o left join delivery.inbox i on i.consumer = 'delivery.reminders' and i.event_id = o.id
  where o.subject = 'task.task.created' and o.payload->'data'->'task'->>'title' = 'ratios create'`;

/**
 * p50 / p99 / max in ms of the lags over the create row's events; the backlog when called, then after
 * draining. With the server's `pid` and the create `row` of ratios.mjs it also gives the server CPU per create
 * including the drain: the row's figure leaves out what the relay and consumers still did after the load.
 */
export async function relayLag(databaseUrl, pid, row, { drainTimeoutMs = 60_000 } = {}) {
  const cpuBefore = pid ? cpuMsOf(pid) : null;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const backlog = async () =>
      (
        await client.query(
          `select count(*)::int as events, count(*) filter (where o.published_at is null)::int as unpublished,
                  count(*) filter (where i.event_id is null)::int as unhandled
           from ${EVENTS}`,
        )
      ).rows[0];
    const atLoadEnd = await backlog();
    const started = Date.now();
    let drained = atLoadEnd;
    while ((drained.unpublished > 0 || drained.unhandled > 0) && Date.now() - started < drainTimeoutMs) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      drained = await backlog();
    }
    const percentiles = async (expr) =>
      (
        await client.query(
          `select round(percentile_cont(0.5) within group (order by ms)::numeric, 1)::float as p50_ms,
                  round(percentile_cont(0.99) within group (order by ms)::numeric, 1)::float as p99_ms,
                  round(max(ms)::numeric, 1)::float as max_ms
           from (select extract(epoch from ${expr}) * 1000 as ms from ${EVENTS}) lag
           where ms is not null`,
        )
      ).rows[0];
    const cpuAfter = pid ? cpuMsOf(pid) : null;
    const rowCpuUs = row?.server_cpu_us_per_request;
    const creates = row ? row.requests_per_s * Number(process.env.DURATION ?? 5) : 0;
    return {
      title: 'relay lag under POST /service/tasks',
      server_cpu_us_per_create_with_drain:
        cpuBefore === null || cpuAfter === null || !rowCpuUs || creates === 0
          ? null
          : Math.round(rowCpuUs + ((cpuAfter - cpuBefore) * 1000) / creates),
      events: atLoadEnd.events,
      backlog_at_load_end: { unpublished: atLoadEnd.unpublished, unhandled: atLoadEnd.unhandled },
      drained_after_ms: Date.now() - started,
      to_published: await percentiles('o.published_at - o.created_at'),
      to_handled: await percentiles('i.processed_at - o.created_at'),
    };
  } finally {
    await client.end();
  }
}
