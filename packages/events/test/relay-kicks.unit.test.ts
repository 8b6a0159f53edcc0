import { Pacer } from '@routinely/platform';
import { quietLogger } from '@routinely/testkit';
import { afterEach, expect, it, vi } from 'vitest';
import { InProcessTransport, OutboxRelay } from '../src/index.js';

// Kicks after commits share one relay pass per gathering (20 ms): a pass per commit made the claims most of
// PostgreSQL's work in a routine fill. No database here: what is checked is when the relay's worker is woken.
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

it('wakes the relay once, 20 ms after the first of the kicks that come meanwhile; stop drops a waiting one', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const wake = vi.spyOn(Pacer.prototype, 'wake');
  const relay = new OutboxRelay({
    db: {} as never,
    transport: new InProcessTransport(),
    logger: quietLogger(),
  });
  relay.kick();
  vi.advanceTimersByTime(10);
  relay.kick();
  relay.kick();
  vi.advanceTimersByTime(9);
  expect(wake).not.toHaveBeenCalled();
  vi.advanceTimersByTime(1);
  expect(wake).toHaveBeenCalledTimes(1);
  // A kick after the pass was woken gathers anew.
  relay.kick();
  vi.advanceTimersByTime(20);
  expect(wake).toHaveBeenCalledTimes(2);
  relay.kick();
  await relay.stop();
  vi.advanceTimersByTime(20);
  expect(wake).toHaveBeenCalledTimes(2);
});
