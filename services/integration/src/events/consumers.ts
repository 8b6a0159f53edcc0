import { defineConsumer, ROW_WRITER_POLICY, taskCalendarEvents, taskEvents } from '@routinely/events';
import type { Clock } from '@routinely/platform';
import { recordAcknowledgement } from '../db/calendar-acknowledgements-sql.js';
import { recordTaskChange } from '../db/write-back-sql.js';

/** Reports are read by requests waiting seconds at most; an hour is far beyond any of them. */
const KEEP_MS = 3_600_000;

/**
 * The integration service's consumers. `calendarAcknowledgements`: the task service's reports that it applied
 * our calendar events to the unified calendar, which a sync or disconnect on request waits for (ADR 061); any
 * replica records them in the shared database, so the replica holding the request sees them whichever one
 * consumed the report. `writeBackTasks`: every task event (each carries the task after the change, with its
 * version) leaves the task's newest slot pending for calendar write-back (ADR 063); the worker writes it.
 */
export function integrationConsumers(options: { clock: Clock; wakeWriteBack: () => void }) {
  const isDeletion = (type: string) => type === taskEvents.taskDeleted.type;
  return {
    calendarAcknowledgements: defineConsumer({
      durable: 'integration.calendar-acknowledgements',
      events: [taskCalendarEvents.externalEventApplied],
      policy: ROW_WRITER_POLICY,
      handle: async (sql, event) => {
        const now = options.clock.now();
        await recordAcknowledgement(sql, event.data.source_event_id, now, new Date(now.getTime() - KEEP_MS));
      },
    }),
    writeBackTasks: defineConsumer({
      durable: 'integration.write-back-tasks',
      events: taskEvents,
      policy: ROW_WRITER_POLICY,
      handle: async (sql, event) => {
        await recordTaskChange(sql, event.data.task, isDeletion(event.type), options.clock.now());
      },
      // Under load: one transaction for a burst of task events instead of one each (the same statements in turn).
      handleBurst: async (sql, events, inEventSpan) => {
        for (const event of events) {
          await inEventSpan(event, () =>
            recordTaskChange(sql, event.data.task, isDeletion(event.type), options.clock.now()),
          );
        }
      },
      // The worker reads what the handler wrote: woken once it is committed.
      afterCommit: options.wakeWriteBack,
    }),
  };
}
