import { type ApiCall, ProviderBusy, ProviderError } from './http.js';

/** What write-back puts into one event: the task's slot and, only for `show_as: "details"`, its words. */
export interface EventContent {
  taskId: string;
  /** Bumped after the user deleted the event upstream, so the next one is a new event (new client id). */
  generation: number;
  title: string;
  /** Null: no description is sent (show_as "busy"). */
  description: string | null;
  start: Date;
  end: Date;
}

/** The outcome of writing an event: its provider id, or `gone` when the user deleted it upstream. */
export type EventWriteOutcome = { id: string } | 'gone';

/**
 * Calendar write-back calls of one provider: a dedicated calendar found by a private marker, and events made
 * idempotent by a client-chosen key (Google: the event id; Microsoft: transactionId), so that a retry after a
 * crash finds the event its first try made instead of making a second one.
 */
export interface CalendarWriter {
  /** The calendar carrying `marker` (made by us before, kept across a reconnect), if any. */
  findCalendar(api: ApiCall, marker: string): Promise<string | null>;
  createCalendar(api: ApiCall, name: string, marker: string): Promise<string>;
  /** Deletes the calendar and with it every event in it; one already gone counts as deleted. */
  deleteCalendar(api: ApiCall, calendarId: string): Promise<void>;
  createEvent(api: ApiCall, calendarId: string, event: EventContent): Promise<EventWriteOutcome>;
  updateEvent(api: ApiCall, calendarId: string, externalId: string, event: EventContent): Promise<EventWriteOutcome>;
  /** One already gone counts as deleted. */
  deleteEvent(api: ApiCall, calendarId: string, externalId: string): Promise<void>;
}

/** The provider answered that the thing is gone: 404, or Google's 410 for a deleted event. */
export function isGone(error: unknown): boolean {
  return error instanceof ProviderError && (error.status === 404 || error.status === 410);
}

/** Google's 403 usage limits (rateLimitExceeded, userRateLimitExceeded), which it asks to back off from. */
function isGoogleRateLimit(error: unknown): boolean {
  if (!(error instanceof ProviderError) || error.status !== 403) return false;
  const errors = (error.body as { error?: { errors?: { reason?: unknown }[] } } | null)?.error?.errors ?? [];
  return errors.some((e) => e.reason === 'rateLimitExceeded' || e.reason === 'userRateLimitExceeded');
}

/** A rate limit in any of its spellings: ProviderBusy (429/503 past the inline wait) or Google's 403. */
export function isRateLimited(error: unknown): boolean {
  return error instanceof ProviderBusy || isGoogleRateLimit(error);
}

/** The private extended property naming the task (Google private property, Graph single-value property name). */
export const TASK_PROPERTY = 'routinely_task_id';

/** Waits for a call whose answer is not read, and lets its body go (the connection is reused). */
export async function drained(call: Promise<Response>): Promise<void> {
  const response = await call;
  await response.body?.cancel();
}
