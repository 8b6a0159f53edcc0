import { setTimeout as sleep } from 'node:timers/promises';
import { counterMetric } from '@routinely/platform';
import { countAcknowledged } from '../db/calendar-acknowledgements-sql.js';
import type { IntegrationContext } from './context.js';

const calendarWaits = counterMetric(
  'routinely_integration_calendar_waits_total',
  'Syncs and disconnects on request waiting for the unified calendar, by outcome (applied, timed_out)',
  ['outcome'],
);

/** How often a waiting request looks for the task service's reports (one indexed count each). */
const POLL_MS = 20;

/**
 * Read-your-writes for the unified calendar (ADR 061): a sync or disconnect on request answers once the task
 * service reported every one of its events applied (`task.external_event.applied`, recorded by any replica's
 * consumer in this service's database), so a read of `GET /calendar/events` after the answer shows the change.
 * The wait is bounded by INTEGRATION_CALENDAR_WAIT_MS: when the task service is down or slow the answer comes
 * anyway (the change is committed and reaches the calendar later), and the miss is logged and counted. The
 * bound is wall time, not the injected clock: it limits how long a caller waits, not a domain instant.
 */
export async function untilCalendarHolds(ctx: IntegrationContext, eventIds: readonly string[]): Promise<void> {
  const waitMs = ctx.config.INTEGRATION_CALENDAR_WAIT_MS;
  if (eventIds.length === 0 || waitMs === 0) return;
  const deadline = performance.now() + waitMs;
  for (;;) {
    if ((await countAcknowledged(ctx.db, eventIds)) >= eventIds.length) {
      calendarWaits.inc({ outcome: 'applied' });
      return;
    }
    const left = deadline - performance.now();
    if (left <= 0) {
      calendarWaits.inc({ outcome: 'timed_out' });
      ctx.logger.warn(
        { events: eventIds.length, wait_ms: waitMs },
        'the unified calendar did not report these changes applied in time; answering without it',
      );
      return;
    }
    await sleep(Math.min(POLL_MS, left));
  }
}
