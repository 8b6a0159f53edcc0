import type { Sql } from '@routinely/db';
import {
  authEvents,
  defineConsumer,
  type EventEnvelope,
  enqueue,
  integrationEvents,
  makeEvent,
  ROW_WRITER_POLICY,
  schedulerEvents,
  taskCalendarEvents,
  taskSettingsEvents,
} from '@routinely/events';
import type { Owner } from '@routinely/platform';
import { isValidTimeZone } from '@routinely/time';
import type { z } from 'zod';
import {
  deleteExternalEvent,
  dropIntegrationEvents,
  findTimezone,
  rememberSettingsTimezone,
  rememberTimezone,
  upsertExternalEvent,
} from '../db/calendar-sql.js';
import {
  CONFIGURED,
  rememberProviderStatus,
  rememberSchedulerDeadLetter,
  rememberSpendDay,
  replaceSchedulerDeadLetters,
} from '../db/scheduler-copies-sql.js';
import type { Routines } from '../domain/routines/routines.js';

type Data = Omit<z.input<typeof taskCalendarEvents.externalEventApplied.schema>, 'source_event_id'>;

/** The owner an event speaks for comes from its envelope (the producer's verified write), never from data. */
function ownerOfEnvelope(event: { tenant_id: string; user_id: string | null }): Owner | null {
  return event.user_id ? { tenantId: event.tenant_id, userId: event.user_id } : null;
}

/**
 * Writes a timezone report with `remember` and, when the user's effective zone (the settings one, else the
 * profile's) changed with it, moves their open routine occurrences to the new zone in the same transaction.
 */
async function followTimezoneChange(
  sql: Sql,
  owner: Owner,
  routines: Pick<Routines, 'followTimezone'>,
  remember: () => Promise<void>,
): Promise<void> {
  const before = await findTimezone(sql, owner);
  await remember();
  if ((await findTimezone(sql, owner)) === (before ?? 'UTC')) return;
  const outbox: EventEnvelope[] = [];
  await routines.followTimezone(sql, outbox, owner);
  await enqueue(sql, ...outbox);
}

/**
 * The task service's consumers: the integration service's events keep the unified calendar's copy of provider
 * events; auth user events and the scheduler's settings keep the user's timezone (calendar defaults are local
 * days; routine occurrences follow a change). They only write rows, in the transaction of the inbox insert that
 * makes a redelivery a no-op.
 */
export const taskConsumers = (deps: { routines: Pick<Routines, 'followTimezone'> }) => ({
  externalEvents: defineConsumer({
    durable: 'task.external-events',
    events: [integrationEvents.eventUpserted, integrationEvents.eventDeleted, integrationEvents.integrationRevoked],
    policy: ROW_WRITER_POLICY,
    handle: async (sql, event) => {
      const owner = ownerOfEnvelope(event);
      if (!owner) return;
      const applied = async (): Promise<Data> => {
        switch (event.type) {
          case 'integration.event.upserted':
          case 'integration.event.deleted': {
            const upserted = event.type === 'integration.event.upserted';
            const snapshot = event.data.event;
            const write = upserted ? upsertExternalEvent : deleteExternalEvent;
            const applied = await write(sql, owner, snapshot);
            const change = upserted ? 'upserted' : 'deleted';
            return { change, applied, integration_id: snapshot.integration_id, event: snapshot };
          }
          case 'integration.integration.revoked': {
            const { integration } = event.data;
            await dropIntegrationEvents(sql, owner, integration.id, integration.updated_at);
            return { change: 'integration_revoked', applied: true, integration_id: integration.id, event: null };
          }
        }
      };
      // Told in this transaction: whoever follows the copy (the integration service's read-your-writes wait,
      // the scheduler's conflict check) learns of the change only once it is readable here.
      const data = await applied();
      await enqueue(
        sql,
        makeEvent(
          taskCalendarEvents.externalEventApplied,
          { ...owner, at: new Date(event.occurred_at) },
          { source_event_id: event.id, ...data },
        ),
      );
    },
  }),
  timezones: defineConsumer({
    durable: 'task.user-timezones',
    events: [authEvents.userRegistered, authEvents.userUpdated],
    policy: ROW_WRITER_POLICY,
    handle: async (sql, event) => {
      const { user } = event.data;
      // A cleared timezone means UTC again; a name this runtime does not know keeps the last good one.
      const zone = user.timezone ?? 'UTC';
      if (!isValidTimeZone(zone)) return;
      const owner = { tenantId: user.tenant_id, userId: user.id };
      await followTimezoneChange(sql, owner, deps.routines, () =>
        rememberTimezone(sql, owner, zone, event.occurred_at),
      );
    },
  }),
  settingsTimezones: defineConsumer({
    durable: 'task.settings-timezones',
    events: [schedulerEvents.settingsTimezoneChanged],
    policy: ROW_WRITER_POLICY,
    handle: async (sql, event) => {
      const owner = ownerOfEnvelope(event);
      if (!owner || !isValidTimeZone(event.data.timezone)) return;
      const { timezone, updated_at } = event.data;
      await followTimezoneChange(sql, owner, deps.routines, () =>
        rememberSettingsTimezone(sql, owner, timezone, updated_at),
      );
      // Told in this transaction: the scheduler's PATCH answers once the change is readable here.
      const applied = makeEvent(
        taskSettingsEvents.timezoneApplied,
        { ...owner, at: new Date(event.occurred_at) },
        { source_event_id: event.id },
      );
      await enqueue(sql, applied);
    },
  }),
  /**
   * The scheduler's figures the dashboard and the health page show (ADR 056): each day's spend of a user and
   * the model registry, copied here so that neither reads them from the scheduler at request time.
   */
  schedulerFigures: defineConsumer({
    durable: 'task.scheduler-figures',
    events: [
      schedulerEvents.usageDailyChanged,
      schedulerEvents.modelRegistryConfigured,
      schedulerEvents.modelCallFinished,
      schedulerEvents.consumerDeadLettered,
      schedulerEvents.consumerDeadLettersReplayed,
    ],
    policy: ROW_WRITER_POLICY,
    handle: async (sql, event) => {
      switch (event.type) {
        case 'scheduler.usage.daily_changed': {
          const owner = ownerOfEnvelope(event);
          if (owner) await rememberSpendDay(sql, owner, event.data.date, event.data.daily_usd);
          return;
        }
        case 'scheduler.model.registry_configured':
          for (const p of event.data.providers) {
            const configured = { model: p.model, available: p.available, last_outcome: null, last_error: null };
            await rememberProviderStatus(sql, {
              tenant_id: CONFIGURED,
              provider: p.name,
              ...configured,
              at: event.data.at,
            });
          }
          return;
        case 'scheduler.model.call_finished': {
          const { provider, outcome, error, at } = event.data;
          const call = { model: null, available: null, last_outcome: outcome, last_error: error };
          await rememberProviderStatus(sql, { tenant_id: event.tenant_id, provider, ...call, at });
          return;
        }
        case 'scheduler.consumer.dead_lettered':
          await rememberSchedulerDeadLetter(sql, event.data);
          return;
        case 'scheduler.consumer.dead_letters_replayed':
          await replaceSchedulerDeadLetters(sql, event.data);
          return;
      }
    },
  }),
});
