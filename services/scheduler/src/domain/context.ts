import type { Orm } from '@routinely/db';
import type { OutboxRelay } from '@routinely/events';
import type { ProviderRegistry } from '@routinely/llm';
import type { Clock } from '@routinely/platform';
import type { SchedulerConfig } from '../config.js';

/** What the scheduler's domain services share (built once in the composition root). */
export interface SchedulerContext {
  orm: Orm;
  clock: Clock;
  relay: Pick<OutboxRelay, 'kick'>;
  providers: ProviderRegistry;
  config: SchedulerConfig;
}
