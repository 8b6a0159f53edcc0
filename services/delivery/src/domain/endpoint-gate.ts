/**
 * Paces the deliveries a worker holds for one endpoint (ADR 081): at most `limit` sends in flight, the next one
 * starting as soon as an answer comes (not when its outcome is written), in claim order. After a failed try
 * the gate closes: the deliveries still waiting are given back to the claim, which applies the circuit and the
 * retry schedule, instead of being sent into a failing receiver.
 */
export class EndpointGate<T> {
  private running = 0;
  private closed = false;
  private readonly waiting: { item: T; resolve: (open: boolean) => void }[] = [];

  constructor(private readonly limit: number) {}

  /** Resolves true when `item` may be sent now, false when the gate closed while it waited. */
  acquire(item: T): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (this.running < this.limit) {
      this.running++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => this.waiting.push({ item, resolve }));
  }

  /** A send got its answer (or gave up); `ok: false` closes the gate for everyone still waiting. */
  release(ok: boolean): void {
    if (!ok) this.close();
    const next = this.waiting.shift();
    if (next && !this.closed) next.resolve(true);
    else this.running--;
  }

  /** The item that starts at the next answer: its send is prepared while the current ones are in flight. */
  get next(): T | undefined {
    return this.waiting[0]?.item;
  }

  get queued(): number {
    return this.waiting.length;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Nothing in flight and nothing waiting: the last send the worker holds for the endpoint has its answer. */
  get idle(): boolean {
    return this.running === 0 && this.waiting.length === 0;
  }

  close(): void {
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) waiter.resolve(false);
  }
}

/**
 * Whether a settled delivery of a claim wakes the pacer for another claim: one that freed places (an in-app
 * or email row; the last row of a held endpoint, which can be claimed again) always, and, if the claim
 * filled the lane, once half of it has settled. Waking for every webhook would run a claim per delivery
 * while its endpoint is still held (ADR 081).
 */
export function settleWaker(size: number, filledLane: boolean, wake: () => void): (freedPlaces: boolean) => void {
  let unsettled = size;
  const half = Math.floor(size / 2);
  return (freedPlaces) => {
    unsettled--;
    if (freedPlaces || (filledLane && unsettled === half)) wake();
  };
}
