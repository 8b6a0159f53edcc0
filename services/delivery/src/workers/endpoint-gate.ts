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

/** One endpoint a webhook claim holds: its gate, the lane places it takes, and its deliveries not yet settled. */
export interface EndpointHold {
  gate: EndpointGate;
  places: number;
  left: number;
}

/** Groups a webhook claim by endpoint: each gets a gate and takes as many lane places as it may send at once. */
export function holdEndpoints(
  claimed: readonly { endpoint_id: string | null }[],
  sendsPerEndpoint: number,
): Map<string, EndpointHold> {
  const groups = new Map<string, EndpointHold>();
  for (const d of claimed) {
    if (!d.endpoint_id) continue;
    const group = groups.get(d.endpoint_id) ?? { gate: new EndpointGate(sendsPerEndpoint), places: 0, left: 0 };
    group.left++;
    groups.set(d.endpoint_id, group);
  }
  for (const group of groups.values()) group.places = Math.min(sendsPerEndpoint, group.left);
  return groups;
}

/**
 * Whether a settled delivery of a claim wakes the pacer for another claim: one that freed places (an in-app
 * or email row; the last row of a claimed endpoint, which can be claimed again) always, and, if the claim
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
