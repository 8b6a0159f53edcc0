import { defineConsumer, ROW_WRITER_POLICY, taskCalendarEvents } from '@routinely/events';
import type { Clock } from '@routinely/platform';
import { recordAcknowledgement } from '../db/calendar-acknowledgements-sql.js';

/** Reports are read by requests waiting seconds at most; an hour is far beyond any of them. */
const KEEP_MS = 3_600_000;

/**
 * The integration service's one consumer: the task service's reports that it applied our calendar events to
 * the unified calendar, which a sync or disconnect on request waits for (ADR 061). Any replica records them
 * in the shared database, so the replica holding the request sees them whichever one consumed the report.
 */
export function integrationConsumers(options: { clock: Clock }) {
  return {
    calendarAcknowledgements: defineConsumer({
      durable: 'integration.calendar-acknowledgements',
      events: [taskCalendarEvents.externalEventApplied],
      policy: ROW_WRITER_POLICY,
      handle: async (em, event) => {
        const now = options.clock.now();
        await recordAcknowledgement(em, event.data.source_event_id, now, new Date(now.getTime() - KEEP_MS));
      },
    }),
  };
}
