import type { EntityManager, Orm } from '@routinely/db';
import {
  authEvents,
  defineConsumer,
  type EventTransport,
  integrationEvents,
  type Subscription,
  startConsumer,
} from '@routinely/events';
import type { Clock, Logger } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import { insertConflictCheck } from '../db/conflicts-sql.js';
import { canonicalTimeZone } from '../domain/settings-model.js';

const rowWriterPolicy = { ackWaitMs: 30_000, maxDeliver: 8, backoffMs: [500, 2_000, 10_000, 30_000, 60_000] };

/**
 * Remembers a user as auth describes them (the newest event wins): the admin quota list pages these users,
 * and their profile timezone seeds the settings row. A zone Intl does not know is kept as none (UTC).
 */
export async function rememberUser(
  em: EntityManager,
  user: { id: string; tenant_id: string; email: string; timezone: string | null; is_active: boolean },
  now: Date,
): Promise<void> {
  const timezone = user.timezone ? (canonicalTimeZone(user.timezone) ?? null) : null;
  await em.getConnection().execute(
    `insert into known_users (user_id, tenant_id, email, timezone, is_active, updated_at) values (?, ?, ?, ?, ?, ?)
     on conflict (user_id) do update set tenant_id = excluded.tenant_id, email = excluded.email,
       timezone = excluded.timezone, is_active = excluded.is_active, updated_at = excluded.updated_at`,
    [user.id, user.tenant_id, user.email, timezone, user.is_active, now],
    'run',
    em.getTransactionContext(),
  );
}

/**
 * The scheduler's consumers only write rows. A busy, live calendar event (new or changed) becomes a conflict
 * check the conflict worker runs (ADR 058); the owner comes from the envelope (the integration service's own
 * write), an event already over is left alone, and one (event, version) is checked once.
 */
export function schedulerConsumers(options: { clock: Clock; onConflictCheck?: () => void }) {
  return {
    conflicts: defineConsumer({
      durable: 'scheduler.schedule-conflicts',
      events: [integrationEvents.eventUpserted],
      policy: rowWriterPolicy,
      handle: async (em, event) => {
        const { event: external } = event.data;
        if (!event.user_id || !external.busy || external.status === 'cancelled') return;
        const start = new Date(external.start);
        const end = new Date(external.end);
        const now = options.clock.now();
        if (!(end > start) || end <= now) return;
        await insertConflictCheck(em, {
          id: uuidv7(),
          tenant_id: event.tenant_id,
          user_id: event.user_id,
          event_id: external.id,
          event_version: external.version,
          title: external.title,
          start,
          end,
          now,
        });
        // The commit follows this handler; the worker's poll covers a wake-up that comes too early.
        if (options.onConflictCheck) setTimeout(options.onConflictCheck, 25);
      },
    }),
    users: defineConsumer({
      durable: 'scheduler.users',
      events: [authEvents.userRegistered, authEvents.userUpdated],
      policy: rowWriterPolicy,
      handle: async (em, event) => rememberUser(em, event.data.user, options.clock.now()),
    }),
  };
}

export async function subscribeConsumers(options: {
  orm: Orm;
  transport: EventTransport;
  logger: Logger;
  clock: Clock;
  onConflictCheck?: () => void;
}): Promise<Subscription[]> {
  const consumers = schedulerConsumers(options);
  return [await startConsumer(consumers.users, options), await startConsumer(consumers.conflicts, options)];
}
