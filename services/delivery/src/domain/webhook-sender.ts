import type { KeyObject } from 'node:crypto';
import { Agent } from 'undici';
import { canonicalJson } from './canonical-json.js';
import { type PostOnce, postWithDispatch } from './post-once.js';
import { classifyStatus, type Outcome } from './retry-policy.js';
import { signatureHeader } from './signature.js';
import { BlockedTargetError, checkedLookup, checkUrlShape, type TargetPolicy } from './target-guard.js';

const USER_AGENT = 'Routinely/1.0';
const PREVIEW_BYTES = 512;

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

/**
 * Posts signed webhooks through one pooled undici Agent whose DNS lookup refuses non-public addresses,
 * so every connection (first hop or redirect) goes to an address that was checked.
 */
export class WebhookSender {
  private readonly agent: Agent;
  constructor(
    private readonly policy: TargetPolicy,
    private readonly timeoutMs: number,
    /** How each request goes out (post-once.ts): the dispatch handler unless told otherwise. */
    private readonly postOnce: PostOnce = postWithDispatch,
  ) {
    this.agent = new Agent({
      connect: { lookup: checkedLookup(policy), timeout: timeoutMs },
      keepAliveTimeout: 10_000,
      connections: 64,
    });
  }

  send(message: WebhookMessage, signal?: AbortSignal): Promise<SendResult> {
    return this.post(prepareWebhook(message), signal);
  }

  /** Posts a prepared message; `signal` abandons it (a killed worker), the send's own timeout fails it. */
  async post(prepared: PreparedWebhook, signal?: AbortSignal): Promise<SendResult> {
    const { body, signature, headers } = prepared;
    const started = performance.now();
    const result = (partial: Omit<SendResult, 'signature' | 'latencyMs'>): SendResult => ({
      ...partial,
      signature,
      latencyMs: Math.round(performance.now() - started),
    });
    let target = prepared.url;
    // The first 3xx is followed once (re-checked like the original URL); a second one is a hard failure.
    for (let hop = 0; hop < 2; hop++) {
      let url: URL;
      try {
        url = checkUrlShape(target, this.policy);
      } catch (error) {
        return result({
          outcome: 'dead',
          statusCode: null,
          error: `blocked target: ${(error as Error).message}`,
          responsePreview: '',
        });
      }
      try {
        const response = await this.postOnce(
          this.agent,
          url,
          { headers, body, timeoutMs: this.timeoutMs, previewBytes: PREVIEW_BYTES },
          signal,
        );
        const preview = response.preview;
        const outcome = classifyStatus(response.statusCode);
        if (outcome !== 'redirect') {
          return result({
            outcome,
            statusCode: response.statusCode,
            error: outcome === 'sent' ? null : `receiver answered ${response.statusCode}`,
            responsePreview: preview,
          });
        }
        const location = response.location;
        if (hop === 1 || typeof location !== 'string') {
          return result({
            outcome: 'dead',
            statusCode: response.statusCode,
            error: hop === 1 ? 'redirected more than once' : 'redirect without Location',
            responsePreview: preview,
          });
        }
        target = new URL(location, url).toString();
      } catch (error) {
        if (signal?.aborted) throw error;
        const blocked = isBlocked(error);
        return result({
          outcome: blocked ? 'dead' : 'retry',
          statusCode: null,
          error: blocked ? `blocked target: ${blocked}` : describeNetworkError(error),
          responsePreview: '',
        });
      }
    }
    throw new Error('unreachable');
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

function isBlocked(error: unknown): string | null {
  for (let e = error as (Error & { cause?: unknown; code?: string }) | undefined; e; e = e.cause as typeof e) {
    if (e instanceof BlockedTargetError || e.code === 'EBLOCKEDTARGET') return e.message;
  }
  return null;
}

function describeNetworkError(error: unknown): string {
  const e = error as Error & { code?: string; cause?: Error & { code?: string } };
  if (e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT') {
    return 'timeout';
  }
  const code = e.cause?.code ?? e.code;
  return code ? `connection error: ${code}` : `connection error: ${e.message}`;
}
