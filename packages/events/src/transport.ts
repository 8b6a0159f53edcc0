import type { EventEnvelope } from './envelope.js';

export type EventHandler = (envelope: EventEnvelope) => Promise<void>;

export interface Subscription {
  stop(): Promise<void>;
}

/**
 * What the outbox relay publishes to and consumers read from. Both implementations give at-least-once
 * delivery with duplicate suppression by message id; consumers stay idempotent through their inbox.
 */
export interface EventTransport {
  /** Resolves once the transport has accepted (JetStream: stored) the event. */
  publish(envelope: EventEnvelope): Promise<void>;
  /** A durable consumer: `durable` names it, `subject` may end in a `>` wildcard. */
  subscribe(durable: string, subject: string, handler: EventHandler): Promise<Subscription>;
  close(): Promise<void>;
}

export function subjectMatches(pattern: string, subject: string): boolean {
  if (pattern.endsWith('.>')) return subject.startsWith(pattern.slice(0, -1));
  const p = pattern.split('.');
  const s = subject.split('.');
  return p.length === s.length && p.every((part, i) => part === '*' || part === s[i]);
}
