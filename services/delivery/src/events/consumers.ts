import {
  authEvents,
  defineConsumer,
  integrationEvents,
  ROW_WRITER_POLICY,
  schedulerEvents,
  taskEvents,
} from '@routinely/events';
import type { Clock } from '@routinely/platform';
import { writeConflictNotification } from '../domain/conflict-notices.js';
import { recordAuthContact } from '../domain/contacts.js';
import { notifyReauthRequired } from '../domain/integration-alerts.js';
import { writeSoftBreachNotification } from '../domain/quota-notices.js';
import { applyTaskEvent, applyTaskEvents } from '../domain/reminders.js';

/**
 * The delivery service's consumers: task events maintain reminders; auth user events keep the email address
 * reminders are mailed to; a calendar integration needing re-authorisation, a crossed soft cap and a calendar
 * conflict the scheduler resolved put a notice in the bell. All only
 * write rows; sending is the workers' job.
 */
export function deliveryConsumers(options: { clock: Clock; onReminderChanged: () => void }) {
  const { clock } = options;
  return {
    reminders: defineConsumer({
      durable: 'delivery.reminders',
      events: taskEvents,
      policy: ROW_WRITER_POLICY,
      handle: (sql, event) => applyTaskEvent(sql, event, clock),
      // Under load: one lock statement and one lookup per burst instead of two round trips per event.
      handleBurst: (sql, events, inEventSpan) => applyTaskEvents(sql, events, clock, inEventSpan),
      // NOTIFY (sent on commit) is the cross-process wake-up; this one covers a listener that is down.
      afterCommit: options.onReminderChanged,
    }),
    contacts: defineConsumer({
      durable: 'delivery.contacts',
      events: [authEvents.userRegistered, authEvents.userUpdated],
      policy: ROW_WRITER_POLICY,
      handle: (sql, event) => recordAuthContact(sql, event.data.user, clock.now()),
    }),
    integrationAlerts: defineConsumer({
      durable: 'delivery.integration-alerts',
      events: [integrationEvents.integrationFailed],
      policy: ROW_WRITER_POLICY,
      handle: async (sql, event) => {
        if (!event.data.reauth_required) return;
        await notifyReauthRequired(sql, event.id, event.data.integration, clock.now());
      },
    }),
    quotaNotices: defineConsumer({
      durable: 'delivery.quota-notices',
      events: [schedulerEvents.quotaSoftBreached],
      policy: ROW_WRITER_POLICY,
      handle: (sql, event) => writeSoftBreachNotification(sql, event, clock.now()),
    }),
    conflictNotices: defineConsumer({
      durable: 'delivery.schedule-conflicts',
      events: [schedulerEvents.scheduleConflicted],
      policy: ROW_WRITER_POLICY,
      handle: (sql, event) => writeConflictNotification(sql, event, clock.now()),
    }),
  };
}
