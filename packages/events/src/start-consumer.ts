import { type ConsumerDefinition, type ConsumerDeps, deliverToConsumer } from './consumer.js';
import { deliverBurst } from './consumer-burst.js';
import type { Subscription } from './transport.js';

/**
 * Subscribes the consumer; every delivery goes through `deliverToConsumer`, or through `deliverBurst` when
 * the transport hands over several messages at once.
 */
export function startConsumer(consumer: ConsumerDefinition, deps: ConsumerDeps): Promise<Subscription> {
  return deps.transport.subscribe(
    { durable: consumer.durable, subjects: consumer.events.map((e) => e.type), policy: consumer.policy },
    (delivery) => deliverToConsumer(consumer, deps, delivery),
    (deliveries) => deliverBurst(consumer, deps, deliveries),
  );
}

/**
 * A service's consumers as one background part (`backgroundOf` in @routinely/platform): every definition
 * subscribed at start, every subscription stopped at stop.
 */
export function consumerSubscriptions(
  consumers: readonly ConsumerDefinition[],
  deps: ConsumerDeps,
): { start(): Promise<void>; stop(): Promise<void> } {
  let subscriptions: Subscription[] = [];
  return {
    start: async () => {
      subscriptions = await Promise.all(consumers.map((consumer) => startConsumer(consumer, deps)));
    },
    stop: async () => {
      for (const subscription of subscriptions.splice(0)) await subscription.stop();
    },
  };
}
