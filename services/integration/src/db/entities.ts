import { defineEntity, type InferEntity, p } from '@routinely/db';

export const PROVIDERS = ['google', 'microsoft'] as const;
export type Provider = (typeof PROVIDERS)[number];
export const INTEGRATION_STATUSES = ['pending', 'active', 'error', 'revoked'] as const;
type IntegrationStatus = (typeof INTEGRATION_STATUSES)[number];
export const EXTERNAL_STATUSES = ['confirmed', 'tentative', 'cancelled'] as const;
export type ExternalStatus = (typeof EXTERNAL_STATUSES)[number];
/** What a written event shows: "busy" sends no title or description upstream; "details" the task's. */
export const SHOW_AS = ['busy', 'details'] as const;
export type ShowAs = (typeof SHOW_AS)[number];

/** One connection of a user to a provider calendar. Every secret column is SecretBox-sealed with the row id. */
const Integration = defineEntity({
  name: 'Integration',
  tableName: 'integrations',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.string().length(64).fieldName('tenant_id'),
    userId: p.string().length(64).fieldName('user_id'),
    provider: p.string().length(16).$type<Provider>(),
    status: p.string().length(16).$type<IntegrationStatus>(),
    accountEmail: p.text().nullable().fieldName('account_email'),
    lastError: p.text().nullable().fieldName('last_error'),
    lastSyncedAt: p.datetime().nullable().fieldName('last_synced_at'),
    accessTokenSealed: p.text().nullable().fieldName('access_token_sealed'),
    refreshTokenSealed: p.text().nullable().fieldName('refresh_token_sealed'),
    accessExpiresAt: p.datetime().nullable().fieldName('access_expires_at'),
    /** Google nextSyncToken or the Graph @odata.deltaLink; null means the next sync is a full one. */
    syncCursor: p.text().nullable().fieldName('sync_cursor'),
    /** sha256 of the pending OAuth state (single use). */
    oauthStateHash: p.string().length(64).nullable().fieldName('oauth_state_hash').unique('integrations_state_unique'),
    oauthStateExpiresAt: p.datetime().nullable().fieldName('oauth_state_expires_at'),
    oauthVerifierSealed: p.text().nullable().fieldName('oauth_verifier_sealed'),
    oauthReturnUrl: p.text().nullable().fieldName('oauth_return_url'),
    /** Google channel id / Graph subscription id. */
    channelId: p.string().length(200).nullable().fieldName('channel_id').unique('integrations_channel_unique'),
    channelResourceId: p.text().nullable().fieldName('channel_resource_id'),
    /** Google channel token / Graph clientState. */
    channelSecretSealed: p.text().nullable().fieldName('channel_secret_sealed'),
    pushExpiresAt: p.datetime().nullable().fieldName('push_expires_at'),
    nextSyncAt: p.datetime().nullable().fieldName('next_sync_at'),
    /** The sync lease: renewed by its holder while the sync runs, so a dead holder's lease lapses within a TTL. */
    syncLeaseUntil: p.datetime().nullable().fieldName('sync_lease_until'),
    syncLeaseHolder: p.uuid().nullable().fieldName('sync_lease_holder'),
    /** The process holding the lease: while it lives it holds a liveness lock, so a killed one frees it at once. */
    syncLeaseOwner: p.uuid().nullable().fieldName('sync_lease_owner'),
    /** The scopes the provider said it granted at the last code exchange (space separated); null: from before. */
    grantedScopes: p.text().nullable().fieldName('granted_scopes'),
    /**
     * The owner's user id while write-back is on, null while off: unique per tenant, so at most one integration of
     * a user writes back (ADR 063).
     */
    writeBackUser: p.string().length(64).nullable().fieldName('write_back_user'),
    writeBackCalendarName: p.string().length(100).nullable().fieldName('write_back_calendar_name'),
    writeBackShowAs: p.string().length(16).nullable().$type<ShowAs>().fieldName('write_back_show_as'),
    /** The provider's id of the dedicated calendar; kept after write-back is turned off until it is deleted upstream. */
    writeBackCalendarId: p.text().nullable().fieldName('write_back_calendar_id'),
    writeBackLastWrittenAt: p.datetime().nullable().fieldName('write_back_last_written_at'),
    writeBackLastError: p.text().nullable().fieldName('write_back_last_error'),
    /** No write-back call before this (a provider's Retry-After or our exponential backoff). */
    writeBackRetryAt: p.datetime().nullable().fieldName('write_back_retry_at'),
    /** Rate-limit answers in a row: the exponent of the backoff when the provider names no Retry-After. */
    writeBackThrottles: p.integer().fieldName('write_back_throttles').default(0),
    createdAt: p.datetime().fieldName('created_at'),
    updatedAt: p.datetime().fieldName('updated_at'),
  },
  uniques: [{ properties: ['tenantId', 'writeBackUser'], name: 'integrations_one_write_back_unique' }],
  indexes: [
    { properties: ['tenantId', 'userId'], name: 'integrations_owner_idx' },
    { properties: ['status', 'nextSyncAt'], name: 'integrations_due_idx' },
  ],
});
export type IntegrationRow = InferEntity<typeof Integration>;

/** Our copy of one provider event: the source of the snapshots published to the unified calendar. */
const ExternalEvent = defineEntity({
  name: 'ExternalEvent',
  tableName: 'external_events',
  properties: {
    id: p.uuid().primary(),
    integrationId: p.uuid().fieldName('integration_id'),
    tenantId: p.string().length(64).fieldName('tenant_id'),
    userId: p.string().length(64).fieldName('user_id'),
    externalId: p.text().fieldName('external_id'),
    title: p.text(),
    startAt: p.datetime().fieldName('start_at'),
    endAt: p.datetime().fieldName('end_at'),
    allDay: p.boolean().fieldName('all_day'),
    status: p.string().length(16).$type<ExternalStatus>(),
    busy: p.boolean(),
    version: p.integer(),
    createdAt: p.datetime().fieldName('created_at'),
    updatedAt: p.datetime().fieldName('updated_at'),
  },
  uniques: [{ properties: ['integrationId', 'externalId'], name: 'external_events_integration_external_unique' }],
});
export type ExternalEventRow = InferEntity<typeof ExternalEvent>;

/**
 * The task service's reports (`task.external_event.applied`) that it applied one of our events to the unified
 * calendar, by our event's id: a sync or disconnect on request answers once its events are reported here.
 * Rows older than an hour are pruned by the consumer that writes them.
 */
const CalendarAcknowledgement = defineEntity({
  name: 'CalendarAcknowledgement',
  tableName: 'calendar_acknowledgements',
  properties: {
    sourceEventId: p.uuid().primary().fieldName('source_event_id'),
    acknowledgedAt: p.datetime().fieldName('acknowledged_at'),
  },
  indexes: [{ properties: ['acknowledgedAt'], name: 'calendar_acknowledgements_at_idx' }],
});

/**
 * One task of a user as write-back needs it: the newest slot the task service reported (`version`, coalesced:
 * the last slot wins, an older event never overwrites a newer one) and what is written upstream for it.
 * `pending` says the two may differ; the write-back worker claims pending rows under a short lease.
 */
const WriteBackTask = defineEntity({
  name: 'WriteBackTask',
  tableName: 'write_back_tasks',
  properties: {
    taskId: p.uuid().primary().fieldName('task_id'),
    tenantId: p.string().length(64).fieldName('tenant_id'),
    userId: p.string().length(64).fieldName('user_id'),
    /** The task row's version of the newest event applied here. */
    version: p.integer(),
    slotStart: p.datetime().nullable().fieldName('slot_start'),
    slotEnd: p.datetime().nullable().fieldName('slot_end'),
    title: p.text(),
    description: p.text().nullable(),
    deleted: p.boolean(),
    pending: p.boolean(),
    /** When the pending change was recorded: the write-back lag is measured from it. */
    changedAt: p.datetime().fieldName('changed_at'),
    claimedUntil: p.datetime().nullable().fieldName('claimed_until'),
    /** Where the event is written: the integration and calendar, the provider's event id. */
    integrationId: p.uuid().nullable().fieldName('integration_id'),
    calendarId: p.text().nullable().fieldName('calendar_id'),
    externalId: p.text().nullable().fieldName('external_id'),
    /** Bumped when the user deleted the event upstream: the next one gets a new client id / transactionId. */
    generation: p.integer().default(0),
    /** The user deleted the event upstream: not written again until the task's slot changes. */
    upstreamDeleted: p.boolean().fieldName('upstream_deleted').default(false),
  },
  indexes: [
    { properties: ['tenantId', 'userId'], name: 'write_back_tasks_owner_idx' },
    { properties: ['pending', 'changedAt'], name: 'write_back_tasks_pending_idx' },
  ],
});

export const integrationEntities = [Integration, ExternalEvent, CalendarAcknowledgement, WriteBackTask];
