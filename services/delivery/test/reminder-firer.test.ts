// The reminder pass's pacing of a burst (ADR 081): the first pass fires a small batch, and the second waits
// (at most a bound) until the delivery pass that the first woke has ended, so that the first deliveries are
// claimed and started before a whole batch is built and inserted beside them.
import { Sql } from '@routinely/db';
import { ManualClock } from '@routinely/platform';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ReminderFirer } from '../src/workers/reminder-firer.js';
import { type Harness, scheduleDue, sqlRows, startHarness } from './harness.js';

const clock = new ManualClock('2026-11-21T08:00:00.000Z');
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(async () => {
  await h?.close();
});

/** An `onFired` whose delivery passes end only when the test says so. */
function heldDeliveryPasses() {
  const release: (() => void)[] = [];
  const onFired = () => new Promise<void>((resolve) => release.push(resolve));
  return { onFired, release };
}

const firedCount = async () =>
  (await sqlRows<{ n: number }>(h.orm, `select count(*)::int as n from reminders where status = 'fired'`))[0]?.n;

describe('ReminderFirer.pass in a burst', () => {
  it('fires 20 first, returns only after the delivery pass it woke ended, and does not wait at the end', async () => {
    await scheduleDue(h, clock, h.tokens.user(), { slotInMin: 30, reminder_channels: ['inapp'] }, 25);
    const passes = heldDeliveryPasses();
    const firer = new ReminderFirer(Sql.of(h.orm), clock, 200, passes.onFired, 60_000);

    let settled = false;
    const first = firer.pass().then((result) => {
      settled = true;
      return result;
    });
    await vi.waitFor(() => expect(passes.release).toHaveLength(1));
    expect(await firedCount()).toBe(20);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false);
    passes.release[0]?.();
    expect(await first).toEqual({ more: true, nextAt: null });

    // The rest is less than a batch: the burst is over, nothing competes with its deliveries, no wait.
    expect(await firer.pass()).toMatchObject({ more: false });
    expect(passes.release).toHaveLength(2);
    expect(await firedCount()).toBe(25);
  });

  it('waits no longer than its bound for a delivery pass that does not end', async () => {
    await scheduleDue(h, clock, h.tokens.user(), { slotInMin: 30, reminder_channels: ['inapp'] }, 20);
    const passes = heldDeliveryPasses();
    const firer = new ReminderFirer(Sql.of(h.orm), clock, 200, passes.onFired, 20);
    expect(await firer.pass()).toEqual({ more: true, nextAt: null });
    expect(passes.release).toHaveLength(1);
  });
});
