import type { ServiceInstance } from './service.js';

/** One part of a service's background work: the outbox relay, a worker, its consumer subscriptions, a client. */
export interface BackgroundPart {
  start?(): unknown;
  stop?(): unknown;
}

/**
 * A service's `start` and `stop` from its background parts: started one after the other in the order given,
 * stopped in the reverse order, so a part stops before the parts it was started after (consumers before the
 * workers they wake, workers before the relay that publishes what they commit).
 */
export function backgroundOf(parts: readonly BackgroundPart[]): Pick<ServiceInstance, 'start' | 'stop'> {
  return {
    start: async () => {
      for (const part of parts) await part.start?.();
    },
    stop: async () => {
      for (const part of [...parts].reverse()) await part.stop?.();
    },
  };
}
