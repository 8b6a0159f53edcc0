import type { Sql } from '@routinely/db';
import type { Clock, SecretBox } from '@routinely/platform';
import type { WebhookClient } from './webhook-client.js';

/** What the domain functions behind the routes share: built once in buildService, never module-level. */
export interface DeliveryContext {
  db: Sql;
  clock: Clock;
  box: SecretBox;
  sender: WebhookClient;
  /** WEBHOOK_MAX_ENDPOINTS_PER_USER */
  maxEndpointsPerUser: number;
}

export const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);
