import type { Sql } from '@routinely/db';
import { type Clock, errorSummary } from '@routinely/platform';
import type { z } from 'zod';
import { type AnyEventDefinition, type ConsumerDefinition, handleOnce, parseDelivery } from './consumer.js';
import {
  type DeadLetterRow,
  deadLettersOf,
  deadLettersSince,
  deleteDeadLetter,
  recordDeadLetterFailure,
  remainingDeadLetters,
} from './db/dead-letters-sql.js';
import { enqueue } from './db/outbox-sql.js';
import { type EventDefinition, makeEvent } from './envelope.js';

export type { DeadLetterRow };

export interface ReplayResult {
  replayed: string[];
  failed: { id: string; error: string }[];
}

/** The event a service whose dead letters another service copies publishes for each replayed letter. */
export type ReplayedEvent = EventDefinition<
  z.ZodType<{ consumer: string; type: string; remaining: number; last_at: string | null }>,
  string
>;

export interface ReplayOptions {
  ids?: string[];
  /**
   * Told in the transaction that deletes each replayed letter, with what is left of the consumer's letters of
   * that type: the scheduler passes `schedulerEvents.consumerDeadLettersReplayed`, as the task service keeps a
   * copy of its dead letters for the health page (ADR 029).
   */
  replayed?: ReplayedEvent;
  clock?: Clock;
}

/**
 * Runs the consumer's handler again for its stored dead letters (all, or the given ids), oldest first, through
 * the same inbox-guarded transaction as a delivery; a letter is deleted in that transaction when it succeeds.
 * One that fails again stays, with its error and attempt count updated.
 */
export async function replayDeadLetters<D extends AnyEventDefinition>(
  db: Sql,
  consumer: ConsumerDefinition<D>,
  options: ReplayOptions = {},
): Promise<ReplayResult> {
  const result: ReplayResult = { replayed: [], failed: [] };
  if (options.ids?.length === 0) return result;
  const letters = await deadLettersOf(db, consumer.durable, options.ids);
  for (const letter of letters) {
    const parsed = parseDelivery(consumer as ConsumerDefinition, letter.payload);
    try {
      if (parsed.kind === 'poison') throw new Error(parsed.error);
      if (parsed.kind === 'ignored') throw new Error(`consumer no longer takes ${letter.subject}`);
      await handleOnce(db, consumer as ConsumerDefinition, parsed.event, async (sql) => {
        await deleteDeadLetter(sql, letter.id);
        if (options.replayed) await reportReplay(sql, options.replayed, letter, options.clock?.now() ?? new Date());
      });
      result.replayed.push(letter.id);
    } catch (error) {
      const message = errorSummary(error);
      await recordDeadLetterFailure(db, letter.id, message);
      result.failed.push({ id: letter.id, error: message });
    }
  }
  return result;
}

async function reportReplay(sql: Sql, replayed: ReplayedEvent, letter: DeadLetterRow, at: Date): Promise<void> {
  const { remaining, last_at } = await remainingDeadLetters(sql, letter.consumer, letter.subject);
  const data = { consumer: letter.consumer, type: letter.subject, remaining, last_at: last_at?.toISOString() ?? null };
  await enqueue(sql, makeEvent(replayed, { tenantId: '', userId: null, at }, data));
}

/** A consumer's dead letters of one event type stored in the last hour (what the health page reports). */
export interface RecentDeadLetters {
  consumer: string;
  type: string;
  count: number;
  lastAt: Date;
}

/** How long a dead letter keeps its consumer `degraded` on the health page (ADR 029). */
export const RECENT_DEAD_LETTER_MS = 60 * 60 * 1000;

/** The service's dead letters younger than RECENT_DEAD_LETTER_MS at `now`, per consumer and type. */
export async function recentDeadLetters(db: Sql, now: Date): Promise<RecentDeadLetters[]> {
  const since = new Date(now.getTime() - RECENT_DEAD_LETTER_MS);
  const rows = await deadLettersSince(db, since);
  return rows.map(({ last_at, ...row }) => ({ ...row, lastAt: last_at }));
}

/** `recentDeadLetters` as the health RPCs answer it (`ConsumerDeadLetters` of delivery.v1 and integration.v1). */
export async function recentDeadLettersReply(db: Sql, now: Date) {
  return (await recentDeadLetters(db, now)).map(({ lastAt, ...row }) => ({ ...row, lastAt: lastAt.toISOString() }));
}
