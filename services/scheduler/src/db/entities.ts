import { defineEntity, p } from '@routinely/db';

/**
 * Entities describe the schema (migrations, drift test). Reads and writes go through SQL in src/db/*-sql.ts:
 * the usage rollup is an atomic upsert and the quota check takes a per-user lock.
 */

/** Users of each tenant as auth's events describe them: whom the admin quota list pages, and their timezone. */
const KnownUser = defineEntity({
  name: 'KnownUser',
  tableName: 'known_users',
  indexes: [{ name: 'known_users_tenant_email_idx', properties: ['tenantId', 'email'] }],
  properties: {
    userId: p.uuid().primary().fieldName('user_id'),
    tenantId: p.string().length(64).fieldName('tenant_id'),
    email: p.string().length(320),
    timezone: p.string().length(64).nullable(),
    isActive: p.boolean().fieldName('is_active'),
    updatedAt: p.datetime().fieldName('updated_at'),
  },
});

const UserSettings = defineEntity({
  name: 'UserSettings',
  tableName: 'user_settings',
  properties: {
    userId: p.uuid().primary().fieldName('user_id'),
    tenantId: p.string().length(64).fieldName('tenant_id'),
    timezone: p.string().length(64),
    llmProviderDefault: p.string().length(32).fieldName('llm_provider_default'),
    workingHours: p.json<Record<string, unknown>>().fieldName('working_hours'),
    reminderOffsetMin: p.integer().fieldName('reminder_offset_min'),
    bufferMin: p.integer().fieldName('buffer_min').default(0),
    createdAt: p.datetime().fieldName('created_at'),
    updatedAt: p.datetime().fieldName('updated_at'),
  },
});

/** One no-go window; the id is global so a reused id is a conflict whoever used it first. */
const NoGoWindow = defineEntity({
  name: 'NoGoWindow',
  tableName: 'no_go_windows',
  indexes: [{ name: 'no_go_windows_owner_idx', properties: ['tenantId', 'userId', 'createdAt'] }],
  properties: {
    id: p.uuid().primary(),
    tenantId: p.string().length(64).fieldName('tenant_id'),
    userId: p.uuid().fieldName('user_id'),
    /** The window as the API returns it (weekly or once). */
    body: p.json<Record<string, unknown>>(),
    createdAt: p.datetime().fieldName('created_at'),
  },
});

const TenantSettings = defineEntity({
  name: 'TenantSettings',
  tableName: 'tenant_settings',
  properties: {
    tenantId: p.string().length(64).primary().fieldName('tenant_id'),
    llmProviderTenantDefault: p.string().length(32).fieldName('llm_provider_tenant_default'),
    llmProviderLocked: p.boolean().fieldName('llm_provider_locked'),
    updatedAt: p.datetime().fieldName('updated_at'),
    updatedBy: p.uuid().nullable().fieldName('updated_by'),
  },
});

/** An administrator's override of a user's spend caps; no row means the defaults (import limits are task's). */
const UserQuota = defineEntity({
  name: 'UserQuota',
  tableName: 'user_quotas',
  properties: {
    userId: p.uuid().primary().fieldName('user_id'),
    tenantId: p.string().length(64).fieldName('tenant_id'),
    softCapUsd: p.decimal().precision(14).scale(6).fieldName('soft_cap_usd'),
    hardCapUsd: p.decimal().precision(14).scale(6).fieldName('hard_cap_usd'),
    updatedAt: p.datetime().fieldName('updated_at'),
  },
});

/** One model call: the ledger every rollup can be rebuilt from. */
const UsageEntry = defineEntity({
  name: 'UsageEntry',
  tableName: 'usage_ledger',
  indexes: [{ name: 'usage_ledger_owner_day_idx', properties: ['userId', 'localDate'] }],
  properties: {
    id: p.uuid().primary(),
    tenantId: p.string().length(64).fieldName('tenant_id'),
    userId: p.uuid().fieldName('user_id'),
    runId: p.uuid().nullable().fieldName('run_id'),
    provider: p.string().length(32),
    model: p.string().length(128),
    inputTokens: p.bigint().fieldName('input_tokens'),
    outputTokens: p.bigint().fieldName('output_tokens'),
    costUsd: p.decimal().precision(14).scale(6).fieldName('cost_usd'),
    /** The calendar day in the user's timezone when the call was recorded. */
    localDate: p.date().fieldName('local_date'),
    at: p.datetime(),
  },
});

/** Per user and local day: incremented by an upsert in the ledger's transaction, so no increment is lost. */
const UsageDaily = defineEntity({
  name: 'UsageDaily',
  tableName: 'usage_daily',
  primaryKeys: ['userId', 'localDate'],
  properties: {
    userId: p.uuid().primary().fieldName('user_id'),
    localDate: p.date().primary().fieldName('local_date'),
    tenantId: p.string().length(64).fieldName('tenant_id'),
    calls: p.integer(),
    inputTokens: p.bigint().fieldName('input_tokens'),
    outputTokens: p.bigint().fieldName('output_tokens'),
    costUsd: p.decimal().precision(14).scale(6).fieldName('cost_usd'),
    /** Set once when the soft cap is first crossed that day: the one bell of the day. */
    softNotifiedAt: p.datetime().nullable().fieldName('soft_notified_at'),
  },
});

/** Spend held by CheckAndReserveQuota until RecordUsage releases it or it expires. */
const QuotaReservation = defineEntity({
  name: 'QuotaReservation',
  tableName: 'quota_reservations',
  indexes: [{ name: 'quota_reservations_owner_idx', properties: ['userId', 'expiresAt'] }],
  properties: {
    id: p.uuid().primary(),
    tenantId: p.string().length(64).fieldName('tenant_id'),
    userId: p.uuid().fieldName('user_id'),
    amountUsd: p.decimal().precision(14).scale(6).fieldName('amount_usd'),
    expiresAt: p.datetime().fieldName('expires_at'),
  },
});

/**
 * When the run worker last claimed a run of an owner (database time: only its order matters). The worker takes
 * the due run of the tenant, then the user, served longest ago, so one owner's queue never starves another's.
 */
const ScheduleRunOwner = defineEntity({
  name: 'ScheduleRunOwner',
  tableName: 'schedule_run_owners',
  primaryKeys: ['tenantId', 'userId'],
  properties: {
    tenantId: p.string().length(64).primary().fieldName('tenant_id'),
    userId: p.uuid().primary().fieldName('user_id'),
    servedAt: p.datetime().fieldName('served_at'),
  },
});

/**
 * One scheduling run (POST /schedule, reflow, an import's auto_schedule). Runs of more than 10 tasks are
 * queued and claimed by the run worker with FOR UPDATE SKIP LOCKED under a lease; a synchronous run holds the
 * lease while its request executes it, so a process dying mid-run leaves it to the worker after the lease.
 */
const ScheduleRun = defineEntity({
  name: 'ScheduleRun',
  tableName: 'schedule_runs',
  indexes: [
    { name: 'schedule_runs_owner_created_idx', properties: ['tenantId', 'userId', 'createdAt'] },
    { name: 'schedule_runs_due_idx', properties: ['status', 'leaseUntil'] },
  ],
  properties: {
    id: p.uuid().primary(),
    tenantId: p.string().length(64).fieldName('tenant_id'),
    userId: p.uuid().fieldName('user_id'),
    /** queued | running | completed | failed */
    status: p.string().length(16),
    /** schedule | reflow */
    kind: p.string().length(16),
    rootTaskId: p.uuid().nullable().fieldName('root_task_id'),
    provider: p.string().length(32),
    model: p.string().length(128),
    taskIds: p.json<string[]>().fieldName('task_ids'),
    windowStart: p.datetime().fieldName('window_start'),
    windowEnd: p.datetime().fieldName('window_end'),
    dryRun: p.boolean().fieldName('dry_run'),
    /** `[{ task_id, reason }]`, appended batch by batch with progress. */
    unscheduled: p.json<unknown[]>(),
    costUsd: p.decimal().precision(14).scale(6).fieldName('cost_usd'),
    progressTotal: p.integer().fieldName('progress_total'),
    progressDone: p.integer().fieldName('progress_done'),
    error: p.text().nullable(),
    attempts: p.integer(),
    leaseUntil: p.datetime().nullable().fieldName('lease_until'),
    createdBy: p.uuid().fieldName('created_by'),
    createdAt: p.datetime().fieldName('created_at'),
    startedAt: p.datetime().nullable().fieldName('started_at'),
    completedAt: p.datetime().nullable().fieldName('completed_at'),
  },
});

/**
 * Append-only: a decision's slot and rationale never change (an override appends a new row naming the one it
 * supersedes). `applied` turns true once the task service holds the slot: a crash between writing and applying
 * leaves it false on a non-dry-run decision, and the next pass applies it again (ApplySlots is idempotent).
 */
const ScheduleDecision = defineEntity({
  name: 'ScheduleDecision',
  tableName: 'schedule_decisions',
  indexes: [
    { name: 'schedule_decisions_run_idx', properties: ['runId', 'createdAt'] },
    { name: 'schedule_decisions_task_idx', properties: ['tenantId', 'taskId', 'createdAt'] },
    // A run's unapplied decisions leave out the superseded ones (runs-sql.ts `unappliedDecisions`).
    { name: 'schedule_decisions_supersedes_idx', properties: ['supersedesId'] },
  ],
  properties: {
    id: p.uuid().primary(),
    tenantId: p.string().length(64).fieldName('tenant_id'),
    userId: p.uuid().fieldName('user_id'),
    runId: p.uuid().nullable().fieldName('run_id'),
    taskId: p.uuid().fieldName('task_id'),
    chosenSlotStart: p.datetime().fieldName('chosen_slot_start'),
    chosenSlotEnd: p.datetime().fieldName('chosen_slot_end'),
    rationale: p.text(),
    provider: p.string().length(32),
    model: p.string().length(128),
    /** agent | solver | override */
    source: p.string().length(16),
    supersedesId: p.uuid().nullable().fieldName('supersedes_id'),
    dryRun: p.boolean().fieldName('dry_run'),
    applied: p.boolean(),
    warnings: p.json<string[]>(),
    createdBy: p.uuid().fieldName('created_by'),
    createdAt: p.datetime().fieldName('created_at'),
  },
});

/**
 * One busy calendar event (at one version) to check against the user's scheduled tasks (ADR 058). The consumer
 * of `integration.event.upserted` writes it; the conflict worker claims it with FOR UPDATE SKIP LOCKED under a
 * lease. `outcome` holds the slots to apply once decided, so a crash after the decisions re-applies them only.
 */
const ScheduleConflictCheck = defineEntity({
  name: 'ScheduleConflictCheck',
  tableName: 'schedule_conflict_checks',
  indexes: [{ name: 'schedule_conflict_checks_due_idx', properties: ['status', 'leaseUntil'] }],
  uniques: [{ name: 'schedule_conflict_checks_event_version_key', properties: ['eventId', 'eventVersion'] }],
  properties: {
    id: p.uuid().primary(),
    tenantId: p.string().length(64).fieldName('tenant_id'),
    userId: p.uuid().fieldName('user_id'),
    eventId: p.uuid().fieldName('event_id'),
    eventVersion: p.integer().fieldName('event_version'),
    title: p.text(),
    eventStart: p.datetime().fieldName('event_start'),
    eventEnd: p.datetime().fieldName('event_end'),
    /** pending | done | failed */
    status: p.string().length(16),
    /** `[{ task_id, start, end, decision_id }]` (start/end null: the slot is cleared), once decided. */
    outcome: p.json<unknown[]>().nullable(),
    attempts: p.integer(),
    leaseUntil: p.datetime().nullable().fieldName('lease_until'),
    error: p.text().nullable(),
    createdAt: p.datetime().fieldName('created_at'),
    completedAt: p.datetime().nullable().fieldName('completed_at'),
  },
});

/**
 * The task service's acknowledgements of settings timezone changes (`task.settings.timezone_applied`): the id of
 * our event it applied, and when. PATCH /settings/me waits for its row; rows older than an hour are pruned.
 */
const SettingsAcknowledgement = defineEntity({
  name: 'SettingsAcknowledgement',
  tableName: 'settings_acknowledgements',
  properties: {
    eventId: p.uuid().primary().fieldName('event_id'),
    at: p.datetime(),
  },
});

export const schedulerEntities = [
  SettingsAcknowledgement,
  ScheduleConflictCheck,
  ScheduleRun,
  ScheduleRunOwner,
  ScheduleDecision,
  KnownUser,
  UserSettings,
  NoGoWindow,
  TenantSettings,
  UserQuota,
  UsageEntry,
  UsageDaily,
  QuotaReservation,
];
