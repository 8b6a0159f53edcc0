import { describe, expect, it } from 'vitest';
import type { EventEnvelope } from './envelope.js';
import { InProcessTransport } from './in-process.js';

const event = (type: string, id = crypto.randomUUID()): EventEnvelope => ({
  id,
  type,
  tenant_id: 't',
  user_id: 'u',
  occurred_at: new Date().toISOString(),
  data: {},
});

describe('in-process transport', () => {
  it('resolves publish only after every matching consumer handled the event, once per message id', async () => {
    const transport = new InProcessTransport({ retryDelayMs: 1 });
    const a: string[] = [];
    const b: string[] = [];
    await transport.subscribe('a', 'task.>', async (e) => void a.push(e.id));
    await transport.subscribe('b', 'task.task.created', async (e) => void b.push(e.id));
    const created = event('task.task.created');
    await transport.publish(created);
    await transport.publish(created);
    await transport.publish(event('task.task.deleted'));
    await transport.publish(event('auth.user.registered'));
    expect(a).toHaveLength(2);
    expect(b).toEqual([created.id]);
  });

  it('retries a failing consumer and rejects when it keeps failing, so the outbox row stays unpublished', async () => {
    const transport = new InProcessTransport({ retries: 2, retryDelayMs: 1 });
    let calls = 0;
    await transport.subscribe('flaky', 'task.>', async () => {
      calls++;
      if (calls < 3) throw new Error('transient');
    });
    await transport.publish(event('task.task.created'));
    expect(calls).toBe(3);
    await transport.subscribe('broken', 'auth.>', async () => {
      throw new Error('down');
    });
    const failing = event('auth.user.registered');
    await expect(transport.publish(failing)).rejects.toThrow(/not handled/);
  });
});
