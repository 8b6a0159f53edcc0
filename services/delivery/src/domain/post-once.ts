import type { Agent } from 'undici';

/** What one HTTP exchange gave: the status, a redirect's Location, and the answer's first bytes. */
export interface Exchange {
  statusCode: number;
  location: string | null;
  preview: string;
}

/** Ends the read once the preview is full; not a failure. */
class PreviewFull extends Error {}

/**
 * One POST through `agent.dispatch` with a bare handler, instead of undici's `request` (which builds a body stream,
 * a combined abort signal and a response object per send: about a seventh of the send path's CPU, ADR 081). The
 * whole exchange is bounded by `timeoutMs` (it fails with a `TimeoutError`, as `AbortSignal.timeout` did); `signal`
 * abandons it (a killed worker) with the signal's reason. Only the first `previewBytes` of the answer are kept;
 * reading stops there.
 */
export function postOnce(
  agent: Agent,
  url: URL,
  init: { headers: Record<string, string>; body: string; timeoutMs: number; previewBytes: number },
  signal?: AbortSignal,
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    let abort: ((reason: Error) => void) | null = null;
    let early: Error | null = null; // a reason that came before the connection
    let statusCode = 0;
    let location: string | null = null;
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    // Before the request is handed to a connection there is nothing to abort yet: fail now, and abort it there.
    const stop = (reason: Error) => {
      if (abort) return abort(reason);
      early = reason;
      finish(reason);
    };
    const timer = setTimeout(
      () => stop(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
      init.timeoutMs,
    );
    const onAbandon = () => stop(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal?.addEventListener('abort', onAbandon, { once: true });
    const finish = (error: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbandon);
      if (error && !(error instanceof PreviewFull)) reject(error);
      else
        resolve({
          statusCode,
          location,
          preview: Buffer.concat(chunks).subarray(0, init.previewBytes).toString('utf8'),
        });
    };
    if (signal?.aborted) return onAbandon();
    agent.dispatch(
      {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: init.headers,
        body: init.body,
        headersTimeout: init.timeoutMs,
        bodyTimeout: init.timeoutMs,
      },
      {
        onConnect(abortExchange: (reason: Error) => void) {
          abort = abortExchange;
          if (early) abortExchange(early);
        },
        onHeaders(code: number, rawHeaders: Buffer[]) {
          statusCode = code;
          for (let i = 0; i < rawHeaders.length; i += 2) {
            if (String(rawHeaders[i]).toLowerCase() === 'location') location = String(rawHeaders[i + 1]);
          }
          return true;
        },
        onData(chunk: Buffer) {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= init.previewBytes) abort?.(new PreviewFull());
          return true;
        },
        onComplete() {
          finish(null);
        },
        onError(error: Error) {
          finish(error);
        },
      } as never, // undici's legacy handler shape (onConnect/onHeaders/...), which its core calls without a wrapper
    );
  });
}
