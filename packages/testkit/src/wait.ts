import { setTimeout } from 'node:timers/promises';

/**
 * The one way a test waits for something that happens in the background (an event consumed, a row written, a
 * job finished): `probe` is asked every `intervalMs` until it returns a value other than `undefined` or `false`,
 * which `waitFor` returns; past `timeoutMs` it throws, naming `what` and the last error the probe threw. A probe
 * that throws is asked again (the thing may not exist yet).
 */
export async function waitFor<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  { what = 'the condition', timeoutMs = 10_000, intervalMs = 25 }: WaitOptions = {},
): Promise<T> {
  const until = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > until) {
      const cause = lastError === undefined ? '' : ` (last error: ${String(lastError)})`;
      throw new Error(`gave up waiting for ${what} after ${timeoutMs} ms${cause}`);
    }
    await setTimeout(intervalMs);
  }
}

export interface WaitOptions {
  /** What is awaited, for the error when it never comes. */
  what?: string;
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * A promise the test opens by hand: a transaction that awaits `passed` stays open (its locks held) until the test
 * has done what it checks meanwhile and calls `open()`.
 */
export function gate(): { passed: Promise<void>; open: () => void } {
  let open = () => {};
  const passed = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { passed, open };
}
