import type { Sql } from '@routinely/db';
import { type EventEnvelope, enqueue, integrationEvents, makeEvent } from '@routinely/events';
import { v7 as uuidv7 } from 'uuid';
import type { ChangeSet, ProviderChange } from '../adapters/adapter.js';
import type { ExternalEventRow, IntegrationRow } from '../db/entities.js';
import {
  insertExternalEvents,
  integrationExternalEvents,
  writeExternalEventChanges,
} from '../db/external-events-sql.js';
import { eventSnapshot } from './snapshots.js';

export interface SyncCounts {
  fetched: number;
  created: number;
  updated: number;
  deleted: number;
}

type LiveChange = Extract<ProviderChange, { removed: false }>;

/** Longest title we keep of a provider event (Google and Graph allow far more; a title is shown, not stored whole). */
const TITLE_MAX_LENGTH = 1000;

/**
 * Provider text as PostgreSQL and JSON can hold it: NUL removed (a text column refuses it, which failed every
 * sync of the connection), lone surrogates replaced by U+FFFD, at most TITLE_MAX_LENGTH characters.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
function providerText(value: string): string {
  return value.replaceAll('\u0000', '').slice(0, TITLE_MAX_LENGTH).replace(LONE_SURROGATE, '\ufffd');
}

const sameContent = (row: ExternalEventRow, c: LiveChange) =>
  row.status !== 'cancelled' &&
  row.title === c.title &&
  row.startAt.getTime() === c.start.getTime() &&
  row.endAt.getTime() === c.end.getTime() &&
  row.allDay === c.allDay &&
  row.status === c.status &&
  row.busy === c.busy;

/**
 * Applies one provider answer to our copy, idempotently by (integration, external id): a change we already
 * hold is not counted and publishes nothing. Every real change bumps the row's `version` and enqueues, in the
 * same transaction, `eventUpserted` (created, changed or back from cancelled) or `eventDeleted` (cancelled or
 * removed at the provider; the row stays as a `cancelled` tombstone so a late copy is recognised). A full
 * answer (first pass, after 410) also removes every live row the provider no longer returned. Answers the
 * counts and the ids of the events enqueued.
 */
export async function applyChanges(
  sql: Sql,
  integration: IntegrationRow,
  set: ChangeSet,
  now: Date,
): Promise<{ counts: SyncCounts; eventIds: string[] }> {
  // Collected while the rows change, then added to the outbox in one statement of the same transaction.
  const events: EventEnvelope[] = [];
  const publish = (event: EventEnvelope) => {
    events.push(event);
  };
  const unreadable = new Set(set.unreadable ?? []);
  const counts: SyncCounts = { fetched: set.changes.length + unreadable.size, created: 0, updated: 0, deleted: 0 };
  // The last word on an id wins when a provider repeats it within one answer.
  const latest = new Map<string, ProviderChange>();
  for (const change of set.changes) {
    // An id we could not store (a NUL in it) is treated as unreadable: counted, our copy left as it was.
    if (change.externalId.includes('\u0000')) unreadable.add(change.externalId);
    else latest.set(change.externalId, change.removed ? change : { ...change, title: providerText(change.title) });
  }
  const asRead = await integrationExternalEvents(sql, integration.id, set.full ? null : [...latest.keys()]);
  // Each row as read and a copy that the answer changes, so that what changed can be told from what was read.
  const reads = asRead.map((before) => ({ before, after: { ...before } }));
  const existing = reads.map((read) => read.after);
  const byExternal = new Map(existing.map((row) => [row.externalId, row]));
  const created: ExternalEventRow[] = [];
  const actor = { tenantId: integration.tenantId, userId: integration.userId, at: now };

  const remove = (row: ExternalEventRow) => {
    row.status = 'cancelled';
    row.version += 1;
    row.updatedAt = now;
    counts.deleted += 1;
    publish(makeEvent(integrationEvents.eventDeleted, actor, { event: eventSnapshot(row, integration) }));
  };

  for (const change of latest.values()) {
    const row = byExternal.get(change.externalId);
    if (change.removed) {
      if (row && row.status !== 'cancelled') remove(row);
      continue;
    }
    if (row && sameContent(row, change)) continue;
    const fields = {
      title: change.title,
      startAt: change.start,
      endAt: change.end,
      allDay: change.allDay,
      status: change.status,
      busy: change.busy,
      updatedAt: now,
    };
    let target: ExternalEventRow;
    if (row) {
      Object.assign(row, fields, { version: row.version + 1 });
      counts.updated += 1;
      target = row;
    } else {
      target = {
        id: uuidv7(),
        integrationId: integration.id,
        tenantId: integration.tenantId,
        userId: integration.userId,
        externalId: change.externalId,
        version: 1,
        createdAt: now,
        ...fields,
      };
      created.push(target);
      counts.created += 1;
    }
    publish(makeEvent(integrationEvents.eventUpserted, actor, { event: eventSnapshot(target, integration) }));
  }

  if (set.full) {
    for (const row of existing) {
      if (!latest.has(row.externalId) && !unreadable.has(row.externalId) && row.status !== 'cancelled') remove(row);
    }
  }
  await insertExternalEvents(sql, created);
  await writeExternalEventChanges(sql, reads);
  await enqueue(sql, ...events);
  return { counts, eventIds: events.map((event) => event.id) };
}
