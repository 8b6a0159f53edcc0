import { counterMetric } from '@routinely/platform';
import type { Counter } from 'prom-client';

export const eventMetrics: {
  readonly deadLettered: Counter<'consumer' | 'type'>;
  readonly redeliveries: Counter<'consumer'>;
} = {
  get deadLettered() {
    return counterMetric(
      'routinely_events_dead_lettered_total',
      'Events a consumer gave up on and stored as dead letters, by consumer and event type.',
      ['consumer', 'type'],
    );
  },
  get redeliveries() {
    return counterMetric(
      'routinely_event_redeliveries_total',
      'Deliveries of an event a consumer had already been given.',
      ['consumer'],
    );
  },
};
