import type { Orm } from '@routinely/db';
import { authEvents, consumeEvents, type EventTransport, type Subscription } from '@routinely/events';
import type { Clock } from '@routinely/platform';
import { rememberContact } from '../db/contacts-sql.js';
import { applyTaskEvent } from '../domain/reminders.js';

/**
 * The delivery service's subscriptions: task events maintain reminders; auth user events keep the email
 * address reminders are mailed to.
 */
export async function subscribeConsumers(options: {
  orm: Orm;
  transport: EventTransport;
  clock: Clock;
  onReminderChanged: () => void;
}): Promise<Subscription[]> {
  const { orm, transport, clock } = options;
  const reminders = await consumeEvents({
    orm,
    transport,
    durable: 'delivery.reminders',
    subject: 'task.task.>',
    handle: async (em, envelope) => {
      // NOTIFY (sent on commit) is the cross-process wake-up; this timer covers a listener that is down.
      if (await applyTaskEvent(em, envelope, clock)) setTimeout(options.onReminderChanged, 25);
    },
  });
  const contacts = await consumeEvents({
    orm,
    transport,
    durable: 'delivery.contacts',
    subject: 'auth.user.>',
    handle: async (em, envelope) => {
      if (envelope.type !== authEvents.userRegistered.type && envelope.type !== authEvents.userUpdated.type) return;
      const { user } = authEvents.userRegistered.schema.parse(envelope.data);
      await rememberContact(em, { tenantId: user.tenant_id, userId: user.id, email: user.email }, clock.now());
    },
  });
  return [reminders, contacts];
}
