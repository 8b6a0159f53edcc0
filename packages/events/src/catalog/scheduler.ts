import { z } from 'zod';
import { defineEvent } from '../envelope.js';

/** Events of the scheduler service (subjects scheduler.<entity>.<verb>). */
export const schedulerEvents = {
  /**
   * A user set their settings timezone (PATCH /settings/me): "today" and a routine's local dates follow it. The
   * owner is the envelope's; `updated_at` orders changes that arrive out of order.
   */
  settingsTimezoneChanged: defineEvent(
    'scheduler.settings.timezone_changed',
    z.object({ timezone: z.string(), updated_at: z.string() }),
  ),
  /**
   * A model call was recorded: the user's total spend of that local day (settings timezone) is now `daily_usd`.
   * The owner is the envelope's. A day's total only grows, so of two copies the larger is the newer. The task
   * service keeps a copy for the dashboard, which thus never calls the scheduler.
   */
  usageDailyChanged: defineEvent(
    'scheduler.usage.daily_changed',
    z.object({ date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/), daily_usd: z.number().nonnegative() }),
  ),
  /**
   * The model providers a scheduler process is configured with, published when it starts (tenant '': it is
   * nobody's). Never a key: only whether one is set.
   */
  modelRegistryConfigured: defineEvent(
    'scheduler.model.registry_configured',
    z.object({
      providers: z.array(z.object({ name: z.string(), model: z.string(), available: z.boolean() })),
      at: z.string(),
    }),
  ),
  /**
   * One call of a language model for the envelope's tenant ended: `ok`, or `error` with a fixed error class
   * (never the provider's message). The administrators' health page shows each provider's last call.
   */
  modelCallFinished: defineEvent(
    'scheduler.model.call_finished',
    z.object({
      provider: z.string(),
      outcome: z.enum(['ok', 'error']),
      error: z.string().nullable(),
      at: z.string(),
    }),
  ),
  /**
   * One of the scheduler's consumers gave up on an event (stored a dead letter): the task service keeps the newest
   * per consumer and type for the health page (ADR 029), as the task service never calls the scheduler (ADR 056).
   * Tenant '': operational, nobody's. Never the payload or the error.
   */
  consumerDeadLettered: defineEvent(
    'scheduler.consumer.dead_lettered',
    z.object({ consumer: z.string(), type: z.string(), at: z.string() }),
  ),
  /**
   * Dead letters of one of the scheduler's consumers were replayed (one event per replayed letter, in the
   * transaction that deleted it): what is left of that consumer's letters of that type, how many and the newest's
   * time, which the task service's copy takes instead of what it had, so the health page clears (ADR 029).
   */
  consumerDeadLettersReplayed: defineEvent(
    'scheduler.consumer.dead_letters_replayed',
    z.object({
      consumer: z.string(),
      type: z.string(),
      remaining: z.number().int().nonnegative(),
      last_at: z.string().nullable(),
    }),
  ),
  /**
   * A user's spend of one local day reached the soft cap: at most one per user and local day. The delivery
   * service turns it into a `quota.soft_breached` bell notification.
   */
  quotaSoftBreached: defineEvent(
    'scheduler.quota.soft_breached',
    z.object({
      user_id: z.string().uuid(),
      tenant_id: z.string(),
      date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
      timezone: z.string(),
      daily_usd: z.number().nonnegative(),
      soft_cap_usd: z.number().nonnegative(),
      hard_cap_usd: z.number().nonnegative(),
    }),
  ),
  /**
   * A busy event of a connected calendar came to overlap scheduled tasks and the scheduler re-placed them
   * (a solver decision each) or could not keep them (their slots cleared). One per (calendar event, version)
   * that moved or dropped anything; the delivery service turns it into one `schedule.conflict` bell
   * notification. Carries titles and instants only, never provider data beyond the event's title.
   */
  scheduleConflicted: defineEvent(
    'scheduler.schedule.conflicted',
    z.object({
      user_id: z.string().uuid(),
      tenant_id: z.string(),
      event: z.object({ id: z.string().uuid(), title: z.string(), start: z.string(), end: z.string() }),
      moved: z.array(
        z.object({
          task_id: z.string().uuid(),
          title: z.string(),
          decision_id: z.string().uuid(),
          from_start: z.string(),
          from_end: z.string(),
          to_start: z.string(),
          to_end: z.string(),
        }),
      ),
      unscheduled: z.array(
        z.object({
          task_id: z.string().uuid(),
          title: z.string(),
          reason: z.string(),
          from_start: z.string(),
          from_end: z.string(),
        }),
      ),
    }),
  ),
};
