import type { KeyObject } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import type { Outcome } from './retry-policy.js';
import { signatureHeader } from './signature.js';

const USER_AGENT = 'Routinely/1.0';

export interface WebhookMessage {
  url: string;
  /** The signing secret; a KeyObject when the caller signs many messages with it (cheaper HMACs). */
  secret: string | KeyObject;
  event: string;
  /** X-Service-Event-Id: the same for every try, redeliver and requeue of one event (ADR 044). */
  eventId: string;
  deliveryId: string;
  endpointId: string;
  body: unknown;
  /** Unix seconds for `t`; fresh on every attempt. */
  timestamp: number;
}

/** A message serialized and signed, ready to post: built while an earlier send is in flight (ADR 081). */
export interface PreparedWebhook {
  url: string;
  body: string;
  signature: string;
  timestamp: number;
  headers: Record<string, string>;
}

export interface SendResult {
  outcome: Exclude<Outcome, 'redirect'>;
  statusCode: number | null;
  error: string | null;
  responsePreview: string;
  signature: string;
  latencyMs: number;
}

/**
 * The port of the webhook client (adapters/webhook-sender.ts): what the domain and the workers need of it, so
 * neither depends on its HTTP client or its address checks.
 */
export interface WebhookClient {
  /** Why `url` may not receive webhooks (scheme, credentials, port, an address it resolves to), or null. */
  targetRefusal(url: string): Promise<string | null>;
  send(message: WebhookMessage, signal?: AbortSignal): Promise<SendResult>;
  /** Posts a prepared message; `signal` abandons it (a killed worker), the send's own timeout fails it. */
  post(prepared: PreparedWebhook, signal?: AbortSignal): Promise<SendResult>;
  close(): Promise<void>;
}

/** Serializes and signs a message (canonical JSON, HMAC over `t.body`): everything a send needs but the post. */
export function prepareWebhook(message: WebhookMessage): PreparedWebhook {
  const body = canonicalJson(message.body);
  const signature = signatureHeader(message.secret, message.timestamp, body);
  return {
    url: message.url,
    body,
    signature,
    timestamp: message.timestamp,
    headers: {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'x-service-signature': signature,
      'x-service-timestamp': String(message.timestamp),
      'x-service-delivery-id': message.deliveryId,
      'x-service-event': message.event,
      'x-service-event-id': message.eventId,
      'x-service-endpoint-id': message.endpointId,
    },
  };
}
