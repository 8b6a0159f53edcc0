/** At most this many messages are pulled ahead and handled in one burst (one transaction). */
export const BURST = 64;

/**
 * Reads `source` into a local queue and hands `handle` everything queued since its previous call (at most
 * `BURST`), one call at a time, in arrival order: under load a consumer handles its messages in bursts, idle
 * it handles each as it comes. Reading pauses while a full burst waits (the server's unacked messages stay
 * bounded). Once `stopping()` (the subscription stops, and the source with it) no new burst starts; what
 * is still queued is left unacked and the server delivers it again after the ack wait, as before bursts.
 */
export async function drainInBursts<T>(
  source: AsyncIterable<T>,
  handle: (burst: T[]) => Promise<void>,
  stopping: () => boolean,
): Promise<void> {
  const queue: T[] = [];
  let ended = false;
  let wakeHandler: (() => void) | undefined;
  let wakeReader: (() => void) | undefined;
  const reader = (async () => {
    try {
      for await (const item of source) {
        // A stopped source still yields the rest of what it had buffered: leave it unacked, and never
        // pause for a handler that has already gone.
        if (stopping()) break;
        queue.push(item);
        wakeHandler?.();
        if (queue.length >= BURST) await new Promise<void>((resolve) => (wakeReader = resolve));
      }
    } finally {
      ended = true;
      wakeHandler?.();
    }
  })();
  while (!stopping() && (queue.length > 0 || !ended)) {
    if (queue.length === 0) {
      await new Promise<void>((resolve) => (wakeHandler = resolve));
      wakeHandler = undefined;
      continue;
    }
    const burst = queue.splice(0, BURST);
    wakeReader?.();
    wakeReader = undefined;
    await handle(burst);
  }
  wakeReader?.(); // a paused reader then finds the stopped source ended
  await reader;
}
