import { type Mailer, MailRejectedError } from '../adapters/mailer.js';
import type { ClaimedDelivery } from '../db/claim-sql.js';
import { type AttemptResult, type FailedAttempt, unsent } from '../domain/outcome.js';
import { type PreparedWebhook, prepareWebhook, type WebhookClient } from '../domain/webhook-client.js';
import type { SendContext } from './send-context.js';

export interface AttemptContext {
  sender: WebhookClient;
  mailer: Mailer;
  send: SendContext;
  nowSeconds: number;
  signal: AbortSignal;
  /** The webhook's message, signed ahead while the endpoint's previous send was in flight (ADR 081). */
  prepared?: WebhookPreparation;
}

/** A webhook try made ready to post, or the reason it cannot be tried. */
export type WebhookPreparation =
  | { ok: true; message: PreparedWebhook; secretSealed: string }
  | { ok: false; failure: FailedAttempt };

/**
 * Builds and signs the body of a webhook try (`attempt` added to the stored payload, `t` = `nowSeconds`). A
 * delivery keeps the secret its first signed try used, so a rotation does not break its retries; the copy stays
 * sealed to the endpoint's id, which the delivery row names too.
 */
export function prepareWebhookAttempt(
  delivery: ClaimedDelivery,
  send: SendContext,
  nowSeconds: number,
): WebhookPreparation {
  const endpoint = delivery.endpoint_id ? send.endpoints.get(delivery.endpoint_id) : undefined;
  if (!endpoint) return { ok: false, failure: unsent('endpoint deleted') };
  if (!endpoint.enabled) return { ok: false, failure: unsent('endpoint disabled') };
  const secretSealed = delivery.secret_sealed ?? endpoint.secret_sealed;
  const message = prepareWebhook({
    url: endpoint.url,
    secret: send.signingKey(secretSealed, endpoint.id),
    event: delivery.event,
    eventId: delivery.event_id,
    deliveryId: delivery.id,
    endpointId: endpoint.id,
    body: { ...delivery.payload, attempt: delivery.attempts + 1 },
    timestamp: nowSeconds,
  });
  return { ok: true, message, secretSealed };
}

/** Makes one try of a delivery on its channel. In-app tries succeed here and write the notification on commit. */
export async function attemptDelivery(delivery: ClaimedDelivery, ctx: AttemptContext): Promise<AttemptResult> {
  if (delivery.channel === 'inapp') return { ok: true, statusCode: null, secretSealed: null };
  if (delivery.channel === 'email') {
    const to = ctx.send.emails.get(`${delivery.tenant_id}/${delivery.user_id}`);
    if (!to) return unsent('no email address known for the user');
    try {
      await ctx.mailer.send(reminderMail(to, { ...delivery.payload, attempt: delivery.attempts + 1 }));
      return { ok: true, statusCode: null, secretSealed: null };
    } catch (error) {
      const rejected = error instanceof MailRejectedError ? error : null;
      return unsent(`email: ${(error as Error).message}`, !rejected?.permanent, rejected?.responseCode ?? null);
    }
  }
  // A message signed ahead is used only within the second it was signed for: `t` is fresh on every try.
  const ahead = ctx.prepared;
  const fresh = ahead && (!ahead.ok || ahead.message.timestamp === ctx.nowSeconds);
  const prepared = fresh ? ahead : prepareWebhookAttempt(delivery, ctx.send, ctx.nowSeconds);
  if (!prepared.ok) return prepared.failure;
  const { secretSealed } = prepared;
  const result = await ctx.sender.post(prepared.message, ctx.signal);
  if (result.outcome === 'sent') return { ok: true, statusCode: result.statusCode, secretSealed };
  return {
    ok: false,
    retryable: result.outcome === 'retry',
    statusCode: result.statusCode,
    error: result.error ?? 'failed',
    secretSealed,
  };
}

function reminderMail(to: string, body: Record<string, unknown>) {
  const task = (body.task ?? {}) as Record<string, unknown>;
  const title = String(task.title ?? 'your task');
  const lines = [
    `Reminder: "${title}" is coming up.`,
    task.chosen_slot_start ? `Starts: ${String(task.chosen_slot_start)}` : '',
    task.chosen_slot_end ? `Ends: ${String(task.chosen_slot_end)}` : '',
    task.description ? `\n${String(task.description)}` : '',
  ];
  return { to, subject: `Reminder: ${title}`, text: lines.filter(Boolean).join('\n') };
}
