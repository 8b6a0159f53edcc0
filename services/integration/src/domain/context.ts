import type { Sql } from '@routinely/db';
import type { OutboxRelay } from '@routinely/events';
import type { Clock, Logger, SecretBox } from '@routinely/platform';
import type { ProviderAdapter } from '../adapters/adapter.js';
import type { IntegrationConfig } from '../config.js';
import type { Provider } from '../db/entities.js';
import type { SyncLeases } from './sync-leases.js';

export interface IntegrationContext {
  db: Sql;
  clock: Clock;
  logger: Logger;
  box: SecretBox;
  relay: OutboxRelay;
  config: IntegrationConfig;
  adapters: Record<Provider, ProviderAdapter>;
  /** Who runs a sync of which integration, as renewed leases (one sync per integration at a time). */
  leases: SyncLeases;
  /** Asks the sync worker to run a pass now (a push arrived, a connection finished). */
  wakeSync(): void;
  /** Asks the write-back worker to run a pass now (a task changed, write-back was switched). */
  wakeWriteBack(): void;
}

/** Sealing contexts: each secret is bound to its row and to its column, so none opens in another place. */
export const sealContext = {
  access: (id: string) => `${id}:access`,
  refresh: (id: string) => `${id}:refresh`,
  verifier: (id: string) => `${id}:pkce`,
  channel: (id: string) => `${id}:channel`,
};

export const callbackPath = '/api/v1/service/integrations/oauth/callback';
export const notificationPath = (provider: Provider) => `/api/v1/service/integrations/${provider}/notifications`;
