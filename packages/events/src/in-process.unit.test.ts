import { describe, expect, it } from 'vitest';
import type { EventEnvelope } from './envelope.js';
import { InProcessTransport } from './in-process.js';
import type { DeliveryPolicy } from './transport.js';

const event = (type: string, id = crypto.randomUUID()): EventEnvelope => ({
  id,
  type,
  tenant_id: 't',
  user_id: 'u',
  occurred_at: new Date().toISOString(),
  data: {},
});
const policy: DeliveryPolicy = { ackWaitMs: 1_000, maxDeliver: 3, backoffMs: [1, 1] };
const idOf = (payload: unknown) => (payload as EventEnvelope).id;

describe('in-process transport', () => {
  it('queues on publish and runs consumers later, in publish order, once per message id', async () => {
    const transport = new InProcessTransport();
    const a: string[] = [];
    const b: string[] = [];
    await transport.subscribe(
      { durable: 'a', subjects: ['task.>'], policy },
      async (d) => void a.push(idOf(d.payload)),
    );
    await transport.subscribe({ durable: 'b', subjects: ['task.task.created'], policy }, async (d) => {
      b.push(idOf(d.payload));
    });
    const events = [event('task.task.created'), event('task.task.deleted'), event('auth.user.registered')];
    for (const e of events) await transport.publish(e);
    await transport.publish(events[0] as EventEnvelope);
    // Nothing ran inside publish.
    expect(a).toEqual([]);
    for (const e of events) await transport.whenHandled(e.id);
    expect(a).toEqual([events[0]?.id, events[1]?.id]);
    expect(b).toEqual([events[0]?.id]);
    await transport.publish(events[0] as EventEnvelope);
    await transport.whenHandled(events[0]?.id as string);
    expect(a).toHaveLength(2);
  });

  it('retries a failing consumer with its attempt number and settles once it succeeds', async () => {
    const transport = new InProcessTransport();
    const attempts: number[] = [];
    await transport.subscribe({ durable: 'flaky', subjects: ['task.>'], policy }, async (d) => {
      attempts.push(d.attempt);
      if (d.attempt < 3) throw new Error('transient');
    });
    const e = event('task.task.created');
    await transport.publish(e);
    await transport.whenHandled(e.id);
    expect(attempts).toEqual([1, 2, 3]);
  });

  it('gives up after maxDeliver attempts, so the relay keeps the outbox row, and goes on with the next event', async () => {
    const transport = new InProcessTransport();
    const handled: string[] = [];
    const broken = event('auth.user.registered');
    await transport.subscribe({ durable: 'picky', subjects: ['auth.>'], policy }, async (d) => {
      if (idOf(d.payload) === broken.id) throw new Error('down');
      handled.push(idOf(d.payload));
    });
    const next = event('auth.user.updated');
    await transport.publish(broken);
    await transport.publish(next);
    await expect(transport.whenHandled(broken.id)).rejects.toThrow(/not handled by every consumer/);
    await transport.whenHandled(next.id);
    expect(handled).toEqual([next.id]);
  });

  it('hands what queued meanwhile to the burst handler together, then retries alone what the burst left', async () => {
    const transport = new InProcessTransport();
    const calls: string[] = [];
    const failing = event('task.task.updated');
    await transport.subscribe(
      { durable: 'bursty', subjects: ['task.>'], policy },
      async (d) => void calls.push(`one ${idOf(d.payload) === failing.id ? 'failing' : 'other'} attempt ${d.attempt}`),
      async (deliveries) => {
        calls.push(`burst of ${deliveries.length}`);
        return deliveries.map((d) => (idOf(d.payload) === failing.id ? new Error('failed in the burst') : undefined));
      },
    );
    const events = [event('task.task.created'), failing, event('task.task.deleted')];
    for (const e of events) await transport.publish(e);
    for (const e of events) await transport.whenHandled(e.id);
    expect(calls).toEqual(['burst of 3', 'one failing attempt 2']);
    // A lone event later goes to the one-at-a-time handler.
    const lone = event('task.task.created');
    await transport.publish(lone);
    await transport.whenHandled(lone.id);
    expect(calls.at(-1)).toBe('one other attempt 1');
  });

  it('gives up what is still queued when a consumer stops', async () => {
    const transport = new InProcessTransport();
    let release = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const sub = await transport.subscribe({ durable: 'slow', subjects: ['task.>'], policy }, () => gate);
    const first = event('task.task.created');
    const second = event('task.task.updated');
    await transport.publish(first);
    await transport.publish(second);
    const [firstHandled, secondHandled] = [transport.whenHandled(first.id), transport.whenHandled(second.id)];
    await new Promise((r) => setImmediate(r));
    const stopped = sub.stop();
    release();
    await stopped;
    await firstHandled;
    await expect(secondHandled).rejects.toThrow(/not handled/);
  });
});
