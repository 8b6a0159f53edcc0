import { setImmediate } from 'node:timers';
import { afterEach } from 'vitest';

/**
 * A setup file of every vitest tier: after each test the worker's event loop turns once. A vitest worker asks the
 * main process to record each result over an RPC whose 60 s timeout no option changes, and its answer arrives as I/O.
 * Synchronous tests run back to back (the solver's recorded optima, about 18 s alone) chain only microtasks, so the
 * answer waits unread; under `npm test`, with the fault tier beside, such a file passed 60 s and Node, which runs
 * expired timers before it reads I/O, failed the call: every test passed and the tier exited 1 ("Timeout calling
 * onTaskUpdate"). `setImmediate` from `node:timers` is the real one even while a test fakes the global timers.
 */
afterEach(() => new Promise<void>((resolve) => setImmediate(resolve)));
