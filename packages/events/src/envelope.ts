import { currentTraceparent } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';

/** Every domain event travels in this envelope; `type` doubles as the NATS subject (<svc>.<entity>.<verb>). */
export const envelopeSchema = z.object({
  id: z.string().uuid(),
  type: z.string().regex(/^[a-z_]+\.[a-z_]+\.[a-z_]+$/),
  tenant_id: z.string(),
  user_id: z.string().nullable(),
  occurred_at: z.string(),
  data: z.unknown(),
  /** W3C trace context of the change that produced the event, so its consumers continue that trace. */
  traceparent: z.string().optional(),
});

export interface EventEnvelope<T = unknown> {
  id: string;
  type: string;
  tenant_id: string;
  user_id: string | null;
  occurred_at: string;
  data: T;
  traceparent?: string;
}

export interface EventDefinition<S extends z.ZodType = z.ZodType, T extends string = string> {
  type: T;
  schema: S;
}

/** The envelope of a catalog event with its data as the catalog's schema parses it. */
export type EventOf<D> =
  D extends EventDefinition<infer S, infer T> ? Omit<EventEnvelope<z.output<S>>, 'type'> & { type: T } : never;

/** Declares an event type of a service's catalog, with the zod schema its data must satisfy. */
export function defineEvent<const T extends string, S extends z.ZodType>(type: T, schema: S): EventDefinition<S, T> {
  return { type, schema };
}

/** Builds a validated envelope (with the active trace, if any); invalid data is a programming error and throws. */
export function makeEvent<S extends z.ZodType>(
  definition: EventDefinition<S, string>,
  meta: { tenantId: string; userId: string | null; at: Date },
  data: z.input<S>,
): EventEnvelope<z.infer<S>> {
  const traceparent = currentTraceparent();
  return {
    id: uuidv7(),
    type: definition.type,
    tenant_id: meta.tenantId,
    user_id: meta.userId,
    occurred_at: meta.at.toISOString(),
    data: definition.schema.parse(data),
    ...(traceparent ? { traceparent } : {}),
  };
}
