import type { Clock } from '@routinely/platform';
import type { z } from 'zod';

/**
 * A provider answered with an error status (after any inline retries), `body` its parsed JSON if any; or it
 * answered with a body we cannot read (`detail` says where, `body` is null: it may hold tokens).
 */
export class ProviderError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    what: string,
    detail?: string,
  ) {
    super(detail ? `${what} answered ${status}: ${detail}` : `${what} answered ${status}`);
    this.name = 'ProviderError';
  }

  /** The OAuth error code of a token endpoint answer (`invalid_grant`, ...). */
  get oauthError(): string | undefined {
    const body = this.body as { error?: unknown } | null;
    return typeof body?.error === 'string' ? body.error : undefined;
  }
}

/** The provider asked us to come back later (429/503 with Retry-After longer than we wait inline). */
export class ProviderBusy extends Error {
  /** `stated`: the provider named the time (Retry-After); else `retryAt` is a short default of ours. */
  constructor(
    readonly retryAt: Date,
    readonly stated = true,
  ) {
    super('provider asked to retry later');
    this.name = 'ProviderBusy';
  }
}

/** The refresh token is gone (invalid_grant): only the user can fix this by connecting again. */
export class ReauthRequired extends Error {
  constructor() {
    super('reauth_required');
    this.name = 'ReauthRequired';
  }
}

export interface HttpOptions {
  clock: Clock;
  timeoutMs: number;
  /** Retry-After up to this is waited out (in real time) and the call made again; longer ends the call. */
  maxInlineRetryMs: number;
}

const USER_AGENT = 'Routinely/1.0';

/** Retry-After in milliseconds: delta-seconds or an HTTP date; absent or unreadable means a short default. */
function retryAfterMs(header: string | null, now: Date): number {
  if (!header) return 1_000;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.max(0, at - now.getTime()) : 1_000;
}

/**
 * One provider call with throttling handled: 429 and 503 are retried after their Retry-After when that is
 * short (at most three tries), else surface as ProviderBusy with the time the provider named. Any other
 * non-2xx is a ProviderError carrying the parsed body.
 */
export async function providerFetch(
  options: HttpOptions,
  what: string,
  url: string,
  init: RequestInit = {},
): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(url, {
      ...init,
      headers: { 'user-agent': USER_AGENT, accept: 'application/json', ...(init.headers ?? {}) },
      signal: AbortSignal.timeout(options.timeoutMs),
      redirect: 'manual',
    });
    if (response.ok) return response;
    if (response.status === 429 || response.status === 503) {
      await response.body?.cancel();
      const wait = retryAfterMs(response.headers.get('retry-after'), options.clock.now());
      if (wait <= options.maxInlineRetryMs && attempt < 3) {
        await new Promise((resolve) => setTimeout(resolve, wait));
        continue;
      }
      throw new ProviderBusy(new Date(options.clock.now().getTime() + wait), response.headers.has('retry-after'));
    }
    const text = await response.text();
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    throw new ProviderError(response.status, body, what);
  }
}

/**
 * A provider's JSON answer read with `schema`: fields it does not name are dropped, a missing or mistyped one
 * it requires (or a body that is not JSON) is a ProviderError naming only the places, never the values.
 */
export async function readAnswer<T>(response: Response, what: string, schema: z.ZodType<T>): Promise<T> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new ProviderError(response.status, null, what, 'not JSON');
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const places = [...new Set(parsed.error.issues.map((issue) => issue.path.join('.') || '(the answer)'))];
  throw new ProviderError(response.status, null, what, `unexpected ${places.slice(0, 5).join(', ')}`);
}

/** An authorised call to the provider's API; refreshes the access token once on a 401. */
export type ApiCall = (what: string, url: string, init?: RequestInit) => Promise<Response>;
