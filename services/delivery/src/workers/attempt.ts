import type { SecretBox } from '@routinely/platform';
import type { Channel } from '../db/entities.js';
import type { WebhookSender } from '../domain/webhook-sender.js';
import { type Mailer, MailRejectedError } from '../email/mailer.js';

/** A claimed delivery as the worker reads it. */
export interface ClaimedDelivery {
  id: string;
  tenant_id: string;
  user_id: string;
  reminder_id: string;
  endpoint_id: string | null;
  channel: Channel;
  event: string;
  event_id: string;
  payload: Record<string, unknown>;
  secret_sealed: string | null;
  attempts: number;
  max_attempts: number;
  lease_token: string;
  /** Until when the claim holds the row: a send that could outlast it is not started (ADR 081). */
  lease_until: Date;
}

export interface EndpointForSend {
  id: string;
  url: string;
  enabled: boolean;
  secret_sealed: string;
  fallback_to_email: boolean;
}

export type FailedAttempt = {
  ok: false;
  retryable: boolean;
  statusCode: number | null;
  error: string;
  secretSealed: string | null;
};

/** What one try produced; `retryable: false` failures go straight to the dead-letter queue. */
export type AttemptResult = { ok: true; statusCode: number | null; secretSealed: string | null } | FailedAttempt;

/** A try that failed before anything was signed, so there is no secret to keep for the retries. */
export const unsent = (error: string, retryable = false, statusCode: number | null = null): FailedAttempt => ({
  ok: false,
  retryable,
  statusCode,
  error,
  secretSealed: null,
});

export interface AttemptContext {
  sender: WebhookSender;
  mailer: Mailer;
  box: SecretBox;
  endpoints: Map<string, EndpointForSend>;
  emails: Map<string, string>;
  nowSeconds: number;
  signal: AbortSignal;
}

/** Makes one try of a delivery on its channel. In-app tries succeed here and write the notification on commit. */
export async function attemptDelivery(delivery: ClaimedDelivery, ctx: AttemptContext): Promise<AttemptResult> {
  const body = { ...delivery.payload, attempt: delivery.attempts + 1 };
  if (delivery.channel === 'inapp') return { ok: true, statusCode: null, secretSealed: null };
  if (delivery.channel === 'email') {
    const to = ctx.emails.get(`${delivery.tenant_id}/${delivery.user_id}`);
    if (!to) return unsent('no email address known for the user');
    try {
      await ctx.mailer.send(reminderMail(to, body));
      return { ok: true, statusCode: null, secretSealed: null };
    } catch (error) {
      const rejected = error instanceof MailRejectedError ? error : null;
      return unsent(`email: ${(error as Error).message}`, !rejected?.permanent, rejected?.responseCode ?? null);
    }
  }
  const endpoint = delivery.endpoint_id ? ctx.endpoints.get(delivery.endpoint_id) : undefined;
  if (!endpoint) return unsent('endpoint deleted');
  if (!endpoint.enabled) return unsent('endpoint disabled');
  // A delivery keeps the secret its first signed try used, so a rotation does not break its retries. The copy
  // stays sealed to the endpoint's id, which the delivery row names too.
  const secretSealed = delivery.secret_sealed ?? endpoint.secret_sealed;
  const result = await ctx.sender.send(
    {
      url: endpoint.url,
      secret: ctx.box.open(secretSealed, endpoint.id),
      event: delivery.event,
      eventId: delivery.event_id,
      deliveryId: delivery.id,
      endpointId: endpoint.id,
      body,
      timestamp: ctx.nowSeconds,
    },
    ctx.signal,
  );
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
