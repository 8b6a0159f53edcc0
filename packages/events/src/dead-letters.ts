import type { Orm } from '@routinely/db';
import {
  type AnyEventDefinition,
  type ConsumerDefinition,
  errorMessage,
  handleOnce,
  parseDelivery,
} from './consumer.js';

export interface DeadLetterRow {
  id: string;
  consumer: string;
  event_id: string | null;
  subject: string;
  payload: unknown;
  error: string;
  attempts: number;
  created_at: Date;
}

export interface ReplayResult {
  replayed: string[];
  failed: { id: string; error: string }[];
}

/**
 * Runs the consumer's handler again for its stored dead letters (all, or the given ids), oldest first, through
 * the same inbox-guarded transaction as a delivery; a letter is deleted in that transaction when it succeeds.
 * One that fails again stays, with its error and attempt count updated.
 */
export async function replayDeadLetters<D extends AnyEventDefinition>(
  orm: Orm,
  consumer: ConsumerDefinition<D>,
  options: { ids?: string[] } = {},
): Promise<ReplayResult> {
  const result: ReplayResult = { replayed: [], failed: [] };
  if (options.ids?.length === 0) return result;
  const connection = orm.em.getConnection();
  const letters = await connection.execute<DeadLetterRow[]>(
    `select * from event_dead_letter where consumer = ? ${options.ids ? 'and id = any(array[?]::uuid[])' : ''}
     order by created_at, id`,
    options.ids ? [consumer.durable, options.ids] : [consumer.durable],
  );
  for (const letter of letters) {
    const parsed = parseDelivery(consumer as ConsumerDefinition, letter.payload);
    try {
      if (parsed.kind === 'poison') throw new Error(parsed.error);
      if (parsed.kind === 'ignored') throw new Error(`consumer no longer takes ${letter.subject}`);
      await handleOnce(orm, consumer as ConsumerDefinition, parsed.event, async (em) => {
        await em
          .getConnection()
          .execute('delete from event_dead_letter where id = ?', [letter.id], 'run', em.getTransactionContext());
      });
      result.replayed.push(letter.id);
    } catch (error) {
      const message = errorMessage(error);
      await connection.execute('update event_dead_letter set error = ?, attempts = attempts + 1 where id = ?', [
        message,
        letter.id,
      ]);
      result.failed.push({ id: letter.id, error: message });
    }
  }
  return result;
}
