/**
 * Paces the deliveries one claim took for one endpoint (ADR 081): at most `limit` sends in flight, the next one
 * starting as soon as an answer comes (not when its outcome is written), in claim order. After a failed try
 * the gate closes: the deliveries still waiting are given back to the claim, which applies the circuit and the
 * retry schedule, instead of being sent into a failing receiver.
 */
export class EndpointGate {
  private running = 0;
  private closed = false;
  private readonly waiting: ((open: boolean) => void)[] = [];

  constructor(private readonly limit: number) {}

  /** Resolves true when the caller may send now, false when the gate closed while it waited. */
  acquire(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (this.running < this.limit) {
      this.running++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** A send got its answer (or gave up); `ok: false` closes the gate for everyone still waiting. */
  release(ok: boolean): void {
    if (!ok) this.close();
    const next = this.waiting.shift();
    if (next && !this.closed) next(true);
    else this.running--;
  }

  /** Nothing in flight and nothing waiting: the claim's last send to the endpoint has its answer. */
  get idle(): boolean {
    return this.running === 0 && this.waiting.length === 0;
  }

  close(): void {
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) waiter(false);
  }
}
