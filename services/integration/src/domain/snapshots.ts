import type { ExternalEventSnapshot, IntegrationSnapshot } from '@routinely/events';
import type { ExternalEventRow, IntegrationRow } from '../db/entities.js';
import { writeBackView } from './write-back.js';

export function eventSnapshot(row: ExternalEventRow, integration: IntegrationRow): ExternalEventSnapshot {
  return {
    id: row.id,
    integration_id: row.integrationId,
    provider: integration.provider,
    external_id: row.externalId,
    title: row.title,
    start: row.startAt.toISOString(),
    end: row.endAt.toISOString(),
    all_day: row.allDay,
    status: row.status,
    busy: row.busy,
    version: row.version,
    updated_at: row.updatedAt.toISOString(),
  };
}

export function integrationSnapshot(row: IntegrationRow): IntegrationSnapshot {
  return {
    id: row.id,
    tenant_id: row.tenantId,
    user_id: row.userId,
    provider: row.provider,
    status: row.status,
    account_email: row.accountEmail ?? null,
    last_error: row.lastError ?? null,
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The public shape of an integration (contract, area C); tokens and push secrets never appear here. */
export function integrationView(row: IntegrationRow) {
  return {
    id: row.id,
    provider: row.provider,
    status: row.status,
    account_email: row.accountEmail ?? null,
    last_synced_at: row.lastSyncedAt?.toISOString() ?? null,
    last_error: row.lastError ?? null,
    push_expires_at: row.pushExpiresAt?.toISOString() ?? null,
    write_back: writeBackView(row),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
