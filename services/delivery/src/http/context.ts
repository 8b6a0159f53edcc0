import type { EntityManager, Orm } from '@routinely/db';
import { type Clock, requirePrincipal } from '@routinely/platform';
import type { FastifyRequest } from 'fastify';
import type { Owner } from '../domain/endpoints.js';
import type { SecretBox } from '../domain/secret-box.js';
import type { TargetPolicy } from '../domain/target-guard.js';
import type { WebhookSender } from '../domain/webhook-sender.js';

/** What the route plugins need; built once in app.ts. */
export interface RouteContext {
  orm: Orm;
  clock: Clock;
  box: SecretBox;
  policy: TargetPolicy;
  sender: WebhookSender;
}

export const em = (ctx: RouteContext): EntityManager => ctx.orm.em.fork();

/** The caller as owner: every read and write of this service is scoped to the caller's own rows. */
export function ownerOf(request: FastifyRequest): Owner {
  const principal = requirePrincipal(request);
  return { tenantId: principal.tenantId, userId: principal.userId };
}

export const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);
