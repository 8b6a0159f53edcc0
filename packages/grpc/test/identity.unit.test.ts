import { afterEach, describe, expect, it, vi } from 'vitest';
import { InternalAuth } from '../src/identity.js';

const secret = 'a-shared-internal-secret-of-32-chars-at-least';
const actor = { tenantId: 't1', userId: 'u1', permissions: ['SERVICE_TASK_READ'] };

describe('InternalAuth keeps the tokens it signed and verified', () => {
  afterEach(() => vi.useRealTimers());

  it('sends one actor the same token for half its life, then a new one; another actor gets its own', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-29T10:00:00Z') });
    const auth = new InternalAuth(secret, 'scheduler');
    const first = await auth.sign(actor);
    vi.setSystemTime(new Date('2026-11-29T10:00:29Z'));
    expect(await auth.sign({ ...actor })).toBe(first);
    expect(await auth.sign({ ...actor, userId: 'u2' })).not.toBe(first);
    expect(await auth.sign({ ...actor, permissions: ['SERVICE_TASK_UPDATE'] })).not.toBe(first);
    vi.setSystemTime(new Date('2026-11-29T10:00:31Z'));
    const renewed = await auth.sign(actor);
    expect(renewed).not.toBe(first);
    expect((await new InternalAuth(secret, 'task').verify(renewed)).userId).toBe('u1');
  });

  it('answers a verified token from memory only until it expires', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-29T10:00:00Z') });
    const token = await new InternalAuth(secret, 'scheduler').sign(actor);
    const receiver = new InternalAuth(secret, 'task');
    const identity = { service: 'scheduler', tenantId: 't1', userId: 'u1', permissions: ['SERVICE_TASK_READ'] };
    expect(await receiver.verify(token)).toEqual(identity);
    vi.setSystemTime(new Date('2026-11-29T10:00:59Z'));
    expect(await receiver.verify(token)).toEqual(identity);
    vi.setSystemTime(new Date('2026-11-29T10:01:01Z'));
    await expect(receiver.verify(token)).rejects.toThrow(/exp/);
  });

  it('verifies any other bytes afresh: a token signed with another secret is refused', async () => {
    const receiver = new InternalAuth(secret, 'task');
    const token = await new InternalAuth(secret, 'scheduler').sign(actor);
    await receiver.verify(token);
    const forged = await new InternalAuth('another-secret-that-is-long-enough-xyz', 'scheduler').sign(actor);
    await expect(receiver.verify(forged)).rejects.toThrow(/signature/);
  });
});
