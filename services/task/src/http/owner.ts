import { requirePrincipal } from '@routinely/platform';
import type { FastifyRequest } from 'fastify';
import type { Owner } from '../domain/task-model.js';

/** The caller's own scope: permission codes open routes but never widen whose tasks they reach. */
export function ownerOf(request: FastifyRequest): Owner {
  const principal = requirePrincipal(request);
  return { tenantId: principal.tenantId, userId: principal.userId };
}
