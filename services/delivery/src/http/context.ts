import type { EntityManager, Orm } from '@routinely/db';
import type { Clock, SecretBox } from '@routinely/platform';
import type { TargetPolicy } from '../domain/target-guard.js';
import type { WebhookSender } from '../domain/webhook-sender.js';

/** What the route plugins need; built once in app.ts. */
export interface RouteContext {
  orm: Orm;
  clock: Clock;
  box: SecretBox;
  policy: TargetPolicy;
  sender: WebhookSender;
  maxEndpointsPerUser: number;
}

export const em = (ctx: RouteContext): EntityManager => ctx.orm.em.fork();

export const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);
