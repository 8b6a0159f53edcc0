import { Counter, register } from 'prom-client';

/** Get-or-create on the default registry, so a second import or a second service never throws. */
function counter(name: string, help: string): Counter<'consumer'> {
  const existing = register.getSingleMetric(name);
  if (existing) return existing as Counter<'consumer'>;
  return new Counter({ name, help, labelNames: ['consumer'] });
}

export const eventMetrics = {
  get deadLetters() {
    return counter('routinely_event_dead_letters_total', 'Events a consumer gave up on and stored as dead letters.');
  },
  get redeliveries() {
    return counter('routinely_event_redeliveries_total', 'Deliveries of an event a consumer had already been given.');
  },
};
