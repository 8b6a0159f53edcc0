import type { Sql } from '@routinely/db';
import { runInEventSpan } from '@routinely/platform';
import {
  type AnyEventDefinition,
  type ConsumerDefinition,
  type ConsumerDeps,
  deliverParsed,
  parseDelivery,
} from './consumer.js';
import { recordInbox } from './db/inbox-sql.js';
import type { EventOf } from './envelope.js';
import { eventMetrics } from './metrics.js';
import { type Delivery, outcomeOf } from './transport.js';

/**
 * Handles a burst of deliveries (the messages a transport holds at once) with one transaction for all of its
 * events: one inbox insert for every event id, then the handlers of the newly inserted ones, in order. The
 * outcome of each delivery (`undefined` = acknowledge) is only known after that commit, so no message is
 * acked before its inbox row is durable. If the transaction fails (a handler threw, the database hiccuped),
 * nothing of it stays and every event is delivered again one by one through `deliverParsed`, which retries or
 * dead-letters only the failing one. Poison, foreign types and JetStream's extra delivery go one by one too.
 */
export async function deliverBurst(
  consumer: ConsumerDefinition,
  deps: ConsumerDeps,
  deliveries: readonly Delivery[],
): Promise<(unknown | undefined)[]> {
  const outcomes: (unknown | undefined)[] = deliveries.map(() => undefined);
  const events: { index: number; event: EventOf<AnyEventDefinition> }[] = [];
  const parsedAll = deliveries.map((delivery) => {
    if (delivery.attempt > 1) eventMetrics.redeliveries.inc({ consumer: consumer.durable });
    return parseDelivery(consumer, delivery.payload);
  });
  for (const [index, parsed] of parsedAll.entries()) {
    const delivery = deliveries[index] as Delivery;
    if (parsed.kind === 'event' && delivery.attempt <= consumer.policy.maxDeliver) {
      events.push({ index, event: parsed.event });
    } else if (parsed.kind !== 'ignored') {
      outcomes[index] = await outcomeOf(deliverParsed(consumer, deps, delivery, parsed));
    }
  }
  if (events.length > 1) {
    const handled = await handleBatchOnce(
      deps.db,
      consumer,
      events.map((e) => e.event),
    ).then(
      () => true,
      () => false,
    );
    if (handled) return outcomes;
  }
  for (const { index, event } of events) {
    outcomes[index] = await outcomeOf(
      deliverParsed(consumer, deps, deliveries[index] as Delivery, { kind: 'event', event }),
    );
  }
  return outcomes;
}

/**
 * `handleOnce` for several events in one transaction: one statement records them all in the inbox, and only
 * the ones it inserted (not handled before, not twice in this burst) are handled, in order: by the
 * consumer's `handleBurst` at once when it has one, else by `handle` one after the other on the same
 * transaction's `Sql`, so every handler sees the rows exactly
 * as if it ran in a transaction of its own after the previous one committed.
 */
export async function handleBatchOnce(
  db: Sql,
  consumer: ConsumerDefinition,
  events: readonly EventOf<AnyEventDefinition>[],
): Promise<void> {
  let changed = false;
  await db.transaction(async (sql) => {
    const fresh = await recordInbox(
      sql,
      consumer.durable,
      events.map((e) => e.id),
    );
    const toHandle = events.filter((event) => fresh.delete(event.id));
    if (consumer.handleBurst) {
      if (toHandle.length === 0) return;
      const outcome = await consumer.handleBurst(sql, toHandle as never, (event, step) =>
        runInEventSpan(event, step, consumer.durable),
      );
      changed = outcome !== false;
      return;
    }
    for (const event of toHandle) {
      const outcome = await runInEventSpan(event, () => consumer.handle(sql, event as never), consumer.durable);
      if (outcome !== false) changed = true;
    }
  });
  if (changed) consumer.afterCommit?.();
}
