import type { Sql } from '@routinely/db';
import type { OutboxRelay } from '@routinely/events';
import type { ProviderRegistry } from '@routinely/llm';
import type { Clock } from '@routinely/platform';
import type { SchedulerConfig } from '../config.js';

/** What the scheduler's domain services share (built once in the composition root). */
export interface SchedulerContext {
  /** The service's database handle (statements on it, transactions opened on it). */
  db: Sql;
  clock: Clock;
  relay: Pick<OutboxRelay, 'kick'>;
  providers: ProviderRegistry;
  config: SchedulerConfig;
}
