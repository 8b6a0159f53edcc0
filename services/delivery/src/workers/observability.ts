import type { Sql } from '@routinely/db';
import { counterMetric, histogramMetric, LAG_BUCKETS, observeAtScrape } from '@routinely/platform';
import { countDeadLetters } from '../db/dead-letters-sql.js';

const deliveryAttempts = counterMetric(
  'routinely_delivery_attempts_total',
  'Delivery tries by channel and result (sent, retry, dead)',
  ['channel', 'result'],
);

const reminderFireLag = histogramMetric(
  'routinely_reminder_fire_lag_seconds',
  'Seconds between a reminder being due (remind_at) and firing',
  [],
  LAG_BUCKETS,
);

/** Counts a recorded try by channel and what became of the delivery: sent, retry (scheduled again) or dead. */
export function countAttempt(channel: string, result: 'sent' | 'retry' | 'dead'): void {
  deliveryAttempts.inc({ channel, result });
}

/** How late a reminder fired: the firing pass's time minus the reminder's remind_at. */
export function observeFireLag(remindAt: Date, firedAt: Date): void {
  reminderFireLag.observe(Math.max(0, (firedAt.getTime() - remindAt.getTime()) / 1000));
}

/**
 * A short, fixed name for why a try failed, for logs and dashboards: the attempt's error text can carry
 * details of the receiver's answer, the class never does.
 */
export function failureClass(error: string): string {
  if (error.startsWith('receiver answered')) return 'http_status';
  if (error === 'timeout') return 'timeout';
  if (error.startsWith('connection error')) return 'connection';
  if (error.startsWith('blocked target')) return 'blocked_target';
  if (error.startsWith('redirect')) return 'redirect';
  if (error.startsWith('email:')) return 'email_rejected';
  if (error === 'endpoint deleted') return 'endpoint_deleted';
  if (error === 'endpoint disabled') return 'endpoint_disabled';
  if (error.startsWith('no email address')) return 'no_email_address';
  return 'worker_error';
}

/** The dead-letter queue's size, counted at scrape; returns the function that stops observing it. */
export function observeDeadLetterQueue(db: Sql): () => void {
  return observeAtScrape(
    { name: 'routinely_delivery_dead_letters', help: 'Deliveries waiting in the dead-letter queue', labelNames: [] },
    {},
    () => countDeadLetters(db),
  );
}
