import { Agent } from 'undici';
import { classifyStatus } from '../domain/retry-policy.js';
import {
  type PreparedWebhook,
  prepareWebhook,
  type SendResult,
  type WebhookClient,
  type WebhookMessage,
} from '../domain/webhook-client.js';
import { type PostOnce, postWithDispatch } from './post-once.js';
import {
  assertPublicTarget,
  BlockedTargetError,
  checkedLookup,
  checkUrlShape,
  type TargetPolicy,
} from './target-guard.js';

const PREVIEW_BYTES = 512;

/**
 * Posts signed webhooks through one pooled undici Agent whose DNS lookup refuses non-public addresses,
 * so every connection (first hop or redirect) goes to an address that was checked.
 */
export class WebhookSender implements WebhookClient {
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

  /** Full check of a target (shape and resolution), as at create and patch time. */
  async targetRefusal(url: string): Promise<string | null> {
    try {
      await assertPublicTarget(url, this.policy);
      return null;
    } catch (error) {
      if (error instanceof BlockedTargetError) return error.message;
      throw error;
    }
  }

  send(message: WebhookMessage, signal?: AbortSignal): Promise<SendResult> {
    return this.post(prepareWebhook(message), signal);
  }

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
