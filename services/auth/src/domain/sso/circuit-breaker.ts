import { AppError, type Clock } from '@routinely/platform';

export type BreakerState = 'closed' | 'open' | 'half_open';

export interface BreakerOptions {
  clock: Clock;
  /** Consecutive failures that open the circuit. */
  failureThreshold: number;
  /** How long it stays open before one trial call is let through. */
  openMs: number;
  /** A call still running after this long is abandoned and counts as a failure. */
  timeoutMs: number;
}

export const ssoUnavailable = (detail = 'The identity provider is unavailable; sign in with your password') =>
  new AppError('sso_unavailable', detail);

class ProviderTimeout extends Error {}

/** The AppError a provider-call failure carries, however deep a client library wrapped it. */
export function appErrorIn(error: unknown): AppError | undefined {
  for (let e = error; e instanceof Error; e = e.cause) if (e instanceof AppError) return e;
  return undefined;
}

/**
 * One breaker over every call to the identity provider (discovery, JWKS, token, userinfo, admin API). While
 * open, calls fail at once with 503 sso_unavailable without touching the network, so a dead provider costs
 * the password login nothing. Time comes from the injected clock; only the per-call timeout is real time.
 */
export class CircuitBreaker {
  private failures = 0;
  private openedAt: number | null = null;
  private trialInFlight = false;

  constructor(private readonly options: BreakerOptions) {}

  get state(): BreakerState {
    if (this.openedAt === null) return 'closed';
    return this.options.clock.now().getTime() - this.openedAt >= this.options.openMs ? 'half_open' : 'open';
  }

  snapshot(): { state: BreakerState; failures: number } {
    return { state: this.state, failures: this.failures };
  }

  /**
   * Runs one provider call. `isFailure` decides whether a settled result means the provider is unhealthy
   * (a 5xx); a thrown error (network, timeout) always does.
   */
  async run<T>(call: (signal: AbortSignal) => Promise<T>, isFailure: (result: T) => boolean = () => false): Promise<T> {
    const state = this.state;
    if (state === 'open') throw ssoUnavailable();
    if (state === 'half_open') {
      // One trial call at a time; the rest keep failing fast until it settles.
      if (this.trialInFlight) throw ssoUnavailable();
      this.trialInFlight = true;
    }
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new ProviderTimeout('identity provider call timed out'));
      }, this.options.timeoutMs);
    });
    try {
      const result = await Promise.race([call(controller.signal), timeout]);
      if (isFailure(result)) this.recordFailure();
      else this.recordSuccess();
      return result;
    } catch (error) {
      this.recordFailure();
      throw ssoUnavailable(
        error instanceof ProviderTimeout ? 'The identity provider did not answer in time' : undefined,
      );
    } finally {
      clearTimeout(timer);
      if (state === 'half_open') this.trialInFlight = false;
    }
  }

  /**
   * A fetch whose every request goes through the breaker. A 5xx answer counts as a failure and is thrown
   * as 503 sso_unavailable; a 4xx is the provider working and saying no, left to the caller.
   */
  readonly fetch = async (url: string | URL, init: RequestInit = {}): Promise<Response> => {
    const response = await this.run(
      (signal) =>
        fetch(url, {
          ...init,
          signal: init.signal ? AbortSignal.any([init.signal, signal]) : signal,
          headers: withUserAgent(init.headers),
        }),
      (res) => res.status >= 500,
    );
    if (response.status >= 500) throw ssoUnavailable('The identity provider failed to answer');
    return response;
  };

  private recordSuccess(): void {
    this.failures = 0;
    this.openedAt = null;
  }

  private recordFailure(): void {
    this.failures += 1;
    if (this.openedAt !== null || this.failures >= this.options.failureThreshold) {
      // A failed trial re-opens for a full period.
      this.openedAt = this.options.clock.now().getTime();
    }
  }
}

function withUserAgent(headers: RequestInit['headers']): Headers {
  const out = new Headers(headers);
  out.set('user-agent', 'Routinely/1.0');
  return out;
}
