import type { Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import { AppError, fieldError, notFound } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import { deleteTestAttempts, insertAttempt } from '../db/attempts-sql.js';
import {
  deleteEndpointRow,
  type EndpointChange,
  insertEndpoint,
  lockAndCountEndpoints,
  ownerEndpoint,
  ownerEndpoints,
  writeEndpointChange,
} from '../db/endpoints-sql.js';
import type { WebhookEndpointRow } from '../db/entities.js';
import type { DeliveryContext } from './context.js';
import type { EventType } from './event-types.js';
import { DEFAULT_MAX_ATTEMPTS } from './retry-policy.js';
import type { SendResult, WebhookClient } from './webhook-client.js';
import { newWebhookSecret, secretPreview } from './webhook-secret.js';

/** A webhook endpoint as stored (its secret sealed). */
export type Endpoint = WebhookEndpointRow;

export interface EndpointInput {
  name: string;
  url: string;
  description?: string | null | undefined;
  enabled?: boolean | undefined;
  max_attempts?: number | undefined;
  fallback_to_email?: boolean | undefined;
  /** Omitted or null: every event type (ADR 044). */
  events?: readonly EventType[] | null | undefined;
}

async function checkUrl(url: string, client: WebhookClient): Promise<void> {
  const refusal = await client.targetRefusal(url);
  if (refusal !== null) throw fieldError(['body', 'url'], refusal, 'url_not_allowed');
}

export function listEndpoints(ctx: DeliveryContext, owner: Owner): Promise<Endpoint[]> {
  return ownerEndpoints(ctx.db, owner);
}

export async function findEndpoint(ctx: DeliveryContext, owner: Owner, id: string): Promise<Endpoint> {
  const row = await ownerEndpoint(ctx.db, owner, id);
  if (!row) throw notFound('Webhook endpoint');
  return row;
}

/** The owner's endpoint, read in the transaction that changes it; 404 when it is not theirs. */
async function endpointIn(sql: Sql, owner: Owner, id: string): Promise<Endpoint> {
  const row = await ownerEndpoint(sql, owner, id);
  if (!row) throw notFound('Webhook endpoint');
  return row;
}

export async function createEndpoint(ctx: DeliveryContext, owner: Owner, input: EndpointInput) {
  await checkUrl(input.url, ctx.sender);
  return ctx.db.transaction(async (sql) => {
    // Counted under the owner's lock, so parallel creates cannot pass the limit together.
    if ((await lockAndCountEndpoints(sql, owner)) >= ctx.maxEndpointsPerUser) {
      throw new AppError('too_many_endpoints', `A user may have at most ${ctx.maxEndpointsPerUser} webhook endpoints`);
    }
    return createdEndpoint(sql, owner, input, ctx);
  });
}

async function createdEndpoint(sql: Sql, owner: Owner, input: EndpointInput, s: DeliveryContext) {
  const secret = newWebhookSecret();
  const now = s.clock.now();
  const id = uuidv7();
  const row: Endpoint = {
    id,
    tenantId: owner.tenantId,
    userId: owner.userId,
    name: input.name,
    url: input.url,
    description: input.description ?? null,
    enabled: input.enabled ?? true,
    maxAttempts: input.max_attempts ?? DEFAULT_MAX_ATTEMPTS,
    fallbackToEmail: input.fallback_to_email ?? false,
    events: storedEvents(input.events),
    secretSealed: s.box.seal(secret, id),
    secretPreview: secretPreview(secret),
    consecutiveFailures: 0,
    circuitOpenUntil: null,
    createdAt: now,
    updatedAt: now,
  };
  await insertEndpoint(sql, row);
  return { row, secret };
}

export async function updateEndpoint(ctx: DeliveryContext, owner: Owner, id: string, patch: Partial<EndpointInput>) {
  if (patch.url !== undefined) {
    // A missing endpoint answers 404 before its new URL is judged; the lookup of the URL's host runs outside
    // the transaction, which holds no connection meanwhile.
    await findEndpoint(ctx, owner, id);
    await checkUrl(patch.url, ctx.sender);
  }
  return ctx.db.transaction(async (sql) => {
    const row = await endpointIn(sql, owner, id);
    const change: EndpointChange = {};
    if (patch.url !== undefined) {
      // A new target starts with a closed circuit: the owner fixed what was failing, deliveries resume at once.
      if (patch.url !== row.url) {
        change.consecutiveFailures = 0;
        change.circuitOpenUntil = null;
      }
      change.url = patch.url;
    }
    if (patch.name !== undefined) change.name = patch.name;
    if (patch.description !== undefined) change.description = patch.description;
    if (patch.enabled !== undefined) change.enabled = patch.enabled;
    if (patch.max_attempts !== undefined) change.maxAttempts = patch.max_attempts;
    if (patch.fallback_to_email !== undefined) change.fallbackToEmail = patch.fallback_to_email;
    if (patch.events !== undefined) change.events = storedEvents(patch.events);
    change.updatedAt = ctx.clock.now();
    // Only what changed is written: the worker's failure count stays as it counted it.
    return writeEndpointChange(sql, row, change);
  });
}

/** New secret for new deliveries at once; retries already signed keep theirs (ADR 040). */
export async function rotateSecret(ctx: DeliveryContext, owner: Owner, id: string) {
  return ctx.db.transaction(async (sql) => {
    const row = await endpointIn(sql, owner, id);
    const secret = newWebhookSecret();
    const changed = await writeEndpointChange(sql, row, {
      secretSealed: ctx.box.seal(secret, row.id),
      secretPreview: secretPreview(secret),
      consecutiveFailures: 0,
      circuitOpenUntil: null,
      updatedAt: ctx.clock.now(),
    });
    return { row: changed, secret };
  });
}

export async function deleteEndpoint(ctx: DeliveryContext, owner: Owner, id: string): Promise<void> {
  await ctx.db.transaction(async (sql) => {
    const row = await endpointIn(sql, owner, id);
    // Test sends are reachable only through their endpoint; deliveries keep their attempts log.
    await deleteTestAttempts(sql, owner.tenantId, id);
    await deleteEndpointRow(sql, row.tenantId, row.id);
  });
}

/** Stored form of `events`: null for "every type", else the given types once each. */
function storedEvents(events: readonly EventType[] | null | undefined): string[] | null {
  return events ? [...new Set(events)] : null;
}

export interface TestResult {
  ok: boolean;
  event_id: string;
  status_code: number;
  latency_ms: number;
  signature: string;
  response_preview: string;
  error?: string;
}

/**
 * Sends a signed webhook.test through the same signer, guard and redirect rule as real deliveries. It
 * writes no delivery row, so it neither uses the retry budget nor touches consecutive_failures; the try is
 * recorded in the attempts log without a delivery (ADR 045).
 */
export async function testEndpoint(s: DeliveryContext, owner: Owner, id: string): Promise<TestResult> {
  const row = await findEndpoint(s, owner, id);
  const now = s.clock.now();
  const deliveryId = uuidv7();
  const eventId = uuidv7();
  let result: SendResult;
  try {
    result = await s.sender.send({
      url: row.url,
      secret: s.box.open(row.secretSealed, row.id),
      event: 'webhook.test',
      eventId,
      deliveryId,
      endpointId: row.id,
      timestamp: Math.floor(now.getTime() / 1000),
      body: {
        event: 'webhook.test',
        event_id: eventId,
        delivery_id: deliveryId,
        endpoint_id: row.id,
        message: `Test delivery for webhook endpoint "${row.name}" from Routinely`,
        occurred_at: now.toISOString(),
        tenant_id: owner.tenantId,
        user_id: owner.userId,
        attempt: 1,
      },
    });
  } catch (error) {
    throw new AppError('internal_error', 'Test delivery failed unexpectedly', { cause: error });
  }
  await insertAttempt(s.db, {
    tenant_id: owner.tenantId,
    user_id: owner.userId,
    delivery_id: null,
    endpoint_id: row.id,
    event: 'webhook.test',
    event_id: eventId,
    attempt: 1,
    at: s.clock.now(),
    status_code: result.statusCode,
    error: result.error,
    latency_ms: result.latencyMs,
  });
  const out: TestResult = {
    ok: result.outcome === 'sent',
    event_id: eventId,
    status_code: result.statusCode ?? 0,
    latency_ms: result.latencyMs,
    signature: result.signature,
    response_preview: result.responsePreview,
  };
  if (result.error) out.error = result.error;
  return out;
}
