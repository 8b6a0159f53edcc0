import { defineEntity, p } from '@routinely/db';

/**
 * Entities describe the schema (migrations, drift test). Hot paths read and write through SQL in
 * src/db/*-sql.ts because tree reads are recursive CTEs and writes take advisory locks.
 */
const Task = defineEntity({
  name: 'Task',
  tableName: 'tasks',
  indexes: [
    { name: 'tasks_owner_parent_idx', properties: ['tenantId', 'userId', 'parent', 'sortOrder'] },
    // Tree walks go parent -> children by this one; it also serves the cascade delete of the FK.
    { name: 'tasks_parent_idx', properties: ['parent', 'sortOrder'] },
    // The calendar reads a user's slotted tasks by time window.
    { name: 'tasks_owner_slot_idx', properties: ['tenantId', 'userId', 'chosenSlotStart'] },
  ],
  // Exactly one occurrence per series and local date, whatever generates it twice or concurrently. Steps carry
  // the series id with a null date, and NULLs never collide in a unique key.
  uniques: [{ name: 'tasks_series_occurrence_unique', properties: ['seriesId', 'occurrenceDate'] }],
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid().fieldName('tenant_id'),
    userId: p.uuid().fieldName('user_id'),
    // Children go with their parent: the database cascade removes whole subtrees.
    parent: () => p.manyToOne(Task).fieldName('parent_task_id').nullable().deleteRule('cascade').mapToPk(),
    depth: p.smallint(),
    sortOrder: p.integer().fieldName('sort_order'),
    title: p.string().length(500),
    description: p.text().nullable(),
    rawInput: p.text().nullable().fieldName('raw_input'),
    status: p.string().length(16),
    priority: p.smallint(),
    durationMin: p.integer().fieldName('duration_min'),
    deadlineAt: p.datetime().nullable().fieldName('deadline_at'),
    earliestStartAt: p.datetime().nullable().fieldName('earliest_start_at'),
    reminderChannels: p.array().fieldName('reminder_channels').columnType('text[]'),
    reminderOffsetMin: p.integer().fieldName('reminder_offset_min'),
    tags: p.array().columnType('text[]'),
    chosenSlotStart: p.datetime().nullable().fieldName('chosen_slot_start'),
    chosenSlotEnd: p.datetime().nullable().fieldName('chosen_slot_end'),
    completedAt: p.datetime().nullable().fieldName('completed_at'),
    createdAt: p.datetime().fieldName('created_at'),
    updatedAt: p.datetime().fieldName('updated_at'),
    /**
     * Counts the changes of the row (1 on insert, +1 in every write's transaction) and travels in every task
     * event, so consumers apply one task's events in commit order whatever order they arrive in (ADR 021).
     */
    version: p.integer().default(1),
    /** A routine's rule, window and horizon (contract "routines"), on the series root only. */
    recurrence: p.json<Record<string, unknown>>().nullable(),
    /** The series this occurrence (root or copied step) was generated from; kept when the series is deleted. */
    seriesId: p.uuid().nullable().fieldName('series_id'),
    /** The local date of an occurrence, on the occurrence's root only. */
    occurrenceDate: p.date().nullable().fieldName('occurrence_date'),
  },
});

/**
 * When each routine is next filled to its horizon: the series worker claims due rows (FOR UPDATE SKIP LOCKED, in
 * the fill's transaction), so replicas never fill one series at once. Goes with its series task.
 */
const TaskSeriesFill = defineEntity({
  name: 'TaskSeriesFill',
  tableName: 'task_series_fills',
  indexes: [{ name: 'task_series_fills_due_idx', properties: ['dueAt'] }],
  properties: {
    series: () => p.manyToOne(Task).primary().fieldName('series_id').deleteRule('cascade').mapToPk(),
    tenantId: p.uuid().fieldName('tenant_id'),
    userId: p.uuid().fieldName('user_id'),
    dueAt: p.datetime().fieldName('due_at'),
    /**
     * The last local date generated: a fill creates only later dates, so an occurrence the user deleted never
     * comes back (a changed rule regenerates from today).
     */
    filledThrough: p.date().fieldName('filled_through'),
  },
});

/** A user's calendar feed: the SHA-256 of its secret token (the token itself is shown once). */
const CalendarFeed = defineEntity({
  name: 'CalendarFeed',
  tableName: 'calendar_feeds',
  properties: {
    tenantId: p.uuid().primary().fieldName('tenant_id'),
    userId: p.uuid().primary().fieldName('user_id'),
    tokenHash: p.string().length(64).unique().fieldName('token_hash'),
    createdAt: p.datetime().fieldName('created_at'),
  },
});

const TaskDependency = defineEntity({
  name: 'TaskDependency',
  tableName: 'task_dependencies',
  uniques: [{ name: 'task_dependencies_edge_unique', properties: ['task', 'dependsOn'] }],
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid().fieldName('tenant_id'),
    userId: p.uuid().fieldName('user_id'),
    task: () => p.manyToOne(Task).fieldName('task_id').deleteRule('cascade').mapToPk(),
    dependsOn: () => p.manyToOne(Task).fieldName('depends_on_id').deleteRule('cascade').mapToPk().index(),
    depType: p.string().length(24).fieldName('dep_type'),
    lagMin: p.integer().fieldName('lag_min'),
    createdAt: p.datetime().fieldName('created_at'),
  },
});

/** A bulk import job: its rows, the outcome of parsing and committing, and the worker's lease. */
const ImportJob = defineEntity({
  name: 'ImportJob',
  tableName: 'import_jobs',
  indexes: [{ name: 'import_jobs_status_idx', properties: ['status', 'leaseUntil'] }],
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid().fieldName('tenant_id'),
    userId: p.uuid().fieldName('user_id'),
    status: p.string().length(16),
    rows: p.json<unknown[]>(),
    total: p.integer(),
    valid: p.integer(),
    invalid: p.integer(),
    errors: p.json<unknown[]>(),
    createdIds: p.json<string[]>().fieldName('created_ids'),
    autoSchedule: p.boolean().fieldName('auto_schedule'),
    scheduleRunId: p.uuid().nullable().fieldName('schedule_run_id'),
    attempts: p.integer(),
    leaseUntil: p.datetime().nullable().fieldName('lease_until'),
    lastError: p.text().nullable().fieldName('last_error'),
    createdAt: p.datetime().fieldName('created_at'),
    updatedAt: p.datetime().fieldName('updated_at'),
  },
});

/** One row per import that counts against the per-user quota (sync commits and job creations). */
const ImportUsage = defineEntity({
  name: 'ImportUsage',
  tableName: 'import_usage',
  indexes: [{ name: 'import_usage_owner_at_idx', properties: ['tenantId', 'userId', 'at'] }],
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid().fieldName('tenant_id'),
    userId: p.uuid().fieldName('user_id'),
    kind: p.string().length(8),
    at: p.datetime(),
  },
});

/**
 * A user's bulk-import limits as an administrator set them (through the scheduler's `/admin/quotas`); a user
 * without a row has the configured defaults (IMPORT_QUOTA_PER_HOUR / _PER_DAY).
 */
const ImportLimit = defineEntity({
  name: 'ImportLimit',
  tableName: 'import_limits',
  properties: {
    tenantId: p.uuid().primary().fieldName('tenant_id'),
    userId: p.uuid().primary().fieldName('user_id'),
    perHour: p.integer().fieldName('per_hour'),
    perDay: p.integer().fieldName('per_day'),
    updatedAt: p.datetime().fieldName('updated_at'),
  },
});

/**
 * The dashboard's copy of each user's model spend per local day, fed by the scheduler's
 * `scheduler.usage.daily_changed`; a day's total only grows, so the larger of two copies is the newer.
 */
const SpendDay = defineEntity({
  name: 'SpendDay',
  tableName: 'spend_days',
  properties: {
    tenantId: p.uuid().primary().fieldName('tenant_id'),
    userId: p.uuid().primary().fieldName('user_id'),
    localDate: p.date().primary().fieldName('local_date'),
    spendUsd: p.decimal().precision(14).scale(6).fieldName('spend_usd'),
  },
});

/**
 * The health page's copy of the scheduler's model registry: the providers it is configured with (tenant '',
 * from `scheduler.model.registry_configured`) and each tenant's last call per provider
 * (`scheduler.model.call_finished`); `at` orders copies that arrive out of order.
 */
const ModelProviderStatus = defineEntity({
  name: 'ModelProviderStatus',
  tableName: 'model_provider_status',
  properties: {
    tenantId: p.string().length(64).primary().fieldName('tenant_id'),
    provider: p.string().length(32).primary(),
    model: p.string().length(128).nullable(),
    available: p.boolean().nullable(),
    lastOutcome: p.string().length(8).nullable().fieldName('last_outcome'),
    lastError: p.string().length(32).nullable().fieldName('last_error'),
    at: p.datetime(),
  },
});

/**
 * The scheduler's consumers' dead letters as its `scheduler.consumer.dead_lettered` events reported them: the
 * newest per consumer and event type and how many were reported (ADR 029). The health page reads it.
 */
const SchedulerDeadLetter = defineEntity({
  name: 'SchedulerDeadLetter',
  tableName: 'scheduler_dead_letters',
  properties: {
    consumer: p.string().length(100).primary(),
    type: p.string().length(200).primary(),
    count: p.integer(),
    lastAt: p.datetime().fieldName('last_at'),
  },
});

/**
 * The unified calendar's copy of provider events (fed by the integration service's events). A deleted event
 * stays as a tombstone (`deleted_at`) so a late, older upsert cannot bring it back; `version` orders copies.
 */
const ExternalEvent = defineEntity({
  name: 'ExternalEvent',
  tableName: 'external_events',
  indexes: [
    { name: 'external_events_owner_start_idx', properties: ['tenantId', 'userId', 'startAt'] },
    { name: 'external_events_integration_idx', properties: ['integrationId'] },
  ],
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid().fieldName('tenant_id'),
    userId: p.uuid().fieldName('user_id'),
    integrationId: p.uuid().fieldName('integration_id'),
    provider: p.string().length(16),
    externalId: p.text().fieldName('external_id'),
    title: p.text(),
    startAt: p.datetime().fieldName('start_at'),
    endAt: p.datetime().fieldName('end_at'),
    allDay: p.boolean().fieldName('all_day'),
    status: p.string().length(16),
    busy: p.boolean(),
    version: p.bigint('number'),
    updatedAt: p.datetime().fieldName('updated_at'),
    deletedAt: p.datetime().nullable().fieldName('deleted_at'),
  },
});

/** Integrations whose events left the calendar: copies written before `revoked_at` are ignored if late. */
const RevokedIntegration = defineEntity({
  name: 'RevokedIntegration',
  tableName: 'revoked_integrations',
  properties: {
    integrationId: p.uuid().primary().fieldName('integration_id'),
    tenantId: p.uuid().fieldName('tenant_id'),
    userId: p.uuid().fieldName('user_id'),
    revokedAt: p.datetime().fieldName('revoked_at'),
  },
});

/**
 * The user's IANA timezones: the profile's as the auth service last reported it, and the scheduler's settings
 * timezone once set (calendar defaults and routines' dates are local days of the settings one, else the profile's).
 */
const UserTimezone = defineEntity({
  name: 'UserTimezone',
  tableName: 'user_timezones',
  properties: {
    tenantId: p.uuid().primary().fieldName('tenant_id'),
    userId: p.uuid().primary().fieldName('user_id'),
    timezone: p.string().length(64),
    updatedAt: p.datetime().fieldName('updated_at'),
    /** The scheduler's settings timezone once the user set one; it wins over the profile's. */
    settingsTimezone: p.string().length(64).nullable().fieldName('settings_timezone'),
    settingsUpdatedAt: p.datetime().nullable().fieldName('settings_updated_at'),
  },
});

/**
 * One change counter per owner for the stored tree answers (domain/tree-answers.ts): a deferred trigger on
 * `tasks` (migration Migration20261125170241) adds 1 in every transaction that updates or deletes one of the
 * owner's tasks or inserts a child task, so a tree read checks one row instead of walking the subtree. Rows are
 * never deleted: a version never comes back.
 */
const TaskTreeVersion = defineEntity({
  name: 'TaskTreeVersion',
  tableName: 'task_tree_versions',
  properties: {
    tenantId: p.uuid().primary().fieldName('tenant_id'),
    userId: p.uuid().primary().fieldName('user_id'),
    version: p.bigint('number'),
  },
});

export const taskEntities = [
  Task,
  TaskDependency,
  ImportJob,
  ImportUsage,
  ExternalEvent,
  RevokedIntegration,
  UserTimezone,
  ImportLimit,
  SpendDay,
  ModelProviderStatus,
  SchedulerDeadLetter,
  TaskTreeVersion,
  TaskSeriesFill,
  CalendarFeed,
];
