import type { Sql } from '@routinely/db';
import {
  authEvents,
  defineConsumer,
  ROW_WRITER_POLICY,
  seriesEvents,
  taskCalendarEvents,
  taskImportEvents,
  taskSettingsEvents,
} from '@routinely/events';
import type { Clock } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import { insertConflictCheck } from '../db/conflicts-sql.js';
import { rememberSettingsAcknowledgement, upsertKnownUser } from '../db/settings-sql.js';
import type { RunService } from '../domain/runs/runs.js';
import { canonicalTimeZone } from '../domain/settings-model.js';

/**
 * Remembers a user as auth describes them (the newest event wins): the admin quota list pages these users,
 * and their profile timezone seeds the settings row. A zone Intl does not know is kept as none (UTC).
 */
export async function rememberUser(
  sql: Sql,
  user: { id: string; tenant_id: string; email: string; timezone: string | null; is_active: boolean },
  now: Date,
): Promise<void> {
  const timezone = user.timezone ? (canonicalTimeZone(user.timezone) ?? null) : null;
  await upsertKnownUser(sql, { ...user, timezone, at: now });
}

/**
 * The scheduler's consumers only write rows. A busy, live calendar event (new or changed) becomes a conflict
 * check the conflict worker runs (ADR 058) once the task service reports it applied the change to the busy
 * time the check reads; the owner comes from the envelope (the task service's own write), an event already
 * over is left alone, and one (event, version) is checked once. An import's auto_schedule and a routine's new
 * occurrences (builtin only, ADR 028) become a queued run under the id the task service chose (ADR 056).
 */
export function schedulerConsumers(options: {
  clock: Clock;
  runs: Pick<RunService, 'queueRequested'>;
  onConflictCheck?: () => void;
  onRunQueued?: () => void;
}) {
  return {
    conflicts: defineConsumer({
      durable: 'scheduler.schedule-conflicts',
      events: [taskCalendarEvents.externalEventApplied],
      policy: ROW_WRITER_POLICY,
      handle: async (sql, event) => {
        const { change, applied, event: external } = event.data;
        // Only a change the task service's copy now holds: a late, older copy moves nothing.
        if (change !== 'upserted' || !applied || !external) return false;
        if (!event.user_id || !external.busy || external.status === 'cancelled') return false;
        const start = new Date(external.start);
        const end = new Date(external.end);
        const now = options.clock.now();
        if (!(end > start) || end <= now) return false;
        await insertConflictCheck(sql, {
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
      },
      // The conflict worker's poll covers a process started without the wake-up.
      afterCommit: options.onConflictCheck,
    }),
    importRuns: defineConsumer({
      durable: 'scheduler.import-runs',
      events: [taskImportEvents.scheduleRequested],
      policy: ROW_WRITER_POLICY,
      handle: async (sql, event) => {
        if (!event.user_id) return false;
        const owner = { tenantId: event.tenant_id, userId: event.user_id };
        await options.runs.queueRequested(sql, owner, event.data.run_id, event.data.task_ids);
      },
      afterCommit: options.onRunQueued,
    }),
    routineRuns: defineConsumer({
      durable: 'scheduler.routine-runs',
      events: [seriesEvents.occurrencesGenerated],
      policy: ROW_WRITER_POLICY,
      handle: async (sql, event) => {
        if (!event.user_id) return false;
        const owner = { tenantId: event.tenant_id, userId: event.user_id };
        const { run_id: runId, task_ids: taskIds, window_end: windowEnd } = event.data;
        await options.runs.queueRequested(sql, owner, runId, taskIds, {
          routine: true,
          windowEnd: windowEnd ? new Date(windowEnd) : undefined,
        });
      },
      afterCommit: options.onRunQueued,
    }),
    users: defineConsumer({
      durable: 'scheduler.users',
      events: [authEvents.userRegistered, authEvents.userUpdated],
      policy: ROW_WRITER_POLICY,
      handle: async (sql, event) => rememberUser(sql, event.data.user, options.clock.now()),
    }),
    /** The task service applied a settings timezone change: PATCH /settings/me may answer (ADR 029). */
    settingsAcknowledgements: defineConsumer({
      durable: 'scheduler.settings-acknowledgements',
      events: [taskSettingsEvents.timezoneApplied],
      policy: ROW_WRITER_POLICY,
      handle: (sql, event) => rememberSettingsAcknowledgement(sql, event.data.source_event_id, options.clock.now()),
    }),
  };
}
