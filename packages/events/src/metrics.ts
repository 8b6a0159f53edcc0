import { counterMetric } from '@routinely/platform';
import type { Counter } from 'prom-client';

export const eventMetrics: { readonly deadLetters: Counter<'consumer'>; readonly redeliveries: Counter<'consumer'> } = {
  get deadLetters() {
    return counterMetric(
      'routinely_event_dead_letters_total',
      'Events a consumer gave up on and stored as dead letters.',
      ['consumer'],
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
