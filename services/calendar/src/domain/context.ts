import type { Sql } from '@routinely/db';
import type { OutboxRelay } from '@routinely/events';
import type { Clock } from '@routinely/platform';
import type { CalendarConfig } from '../config.js';
import type { UserDirectory } from './user-directory.js';

/** What the domain services share: built once in buildService, never module-level. */
export interface CalendarContext {
  db: Sql;
  clock: Clock;
  relay: Pick<OutboxRelay, 'kick'>;
  userDirectory: UserDirectory;
  config: Pick<CalendarConfig, 'CALENDAR_MAX_WINDOW_DAYS'>;
}
