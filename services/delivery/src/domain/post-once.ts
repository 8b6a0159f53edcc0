import { type Agent, request } from 'undici';

/** What one HTTP exchange gave: the status, a redirect's Location, and the answer's first bytes. */
export interface Exchange {
  statusCode: number;
  location: string | null;
  preview: string;
}

export interface PostInit {
  headers: Record<string, string>;
  body: string;
  /** Bounds the whole exchange: it fails with a `TimeoutError` (as `AbortSignal.timeout` fails). */
  timeoutMs: number;
  /** Only this many bytes of the answer are kept; reading stops there. */
  previewBytes: number;
}

/**
 * One POST through `agent`, and the first bytes of its answer. `signal` abandons it (a killed worker) with the
 * signal's reason. The webhook sender and the client warm-up post through this one function.
 */
export async function postOnce(agent: Agent, url: URL, init: PostInit, signal?: AbortSignal): Promise<Exchange> {
  const timeout = AbortSignal.timeout(init.timeoutMs);
  const response = await request(url, {
    method: 'POST',
    headers: init.headers,
    body: init.body,
    dispatcher: agent,
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    headersTimeout: init.timeoutMs,
    bodyTimeout: init.timeoutMs,
  });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size >= init.previewBytes) break; // leaving the loop destroys the rest of the answer
  }
  const location = response.headers.location;
  return {
    statusCode: response.statusCode,
    location: typeof location === 'string' ? location : null,
    preview: Buffer.concat(chunks).subarray(0, init.previewBytes).toString('utf8'),
  };
}
