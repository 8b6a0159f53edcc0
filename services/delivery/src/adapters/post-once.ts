import { type Agent, type Dispatcher, request } from 'undici';

/** What one HTTP exchange gave: the status, a redirect's Location, and the answer's first bytes. */
interface Exchange {
  statusCode: number;
  location: string | null;
  preview: string;
}

interface PostInit {
  headers: Record<string, string>;
  body: string;
  /** Bounds the whole exchange: it fails with a `TimeoutError` (as `AbortSignal.timeout` fails). */
  timeoutMs: number;
  /** Only this many bytes of the answer are kept; reading stops there. */
  previewBytes: number;
}

/**
 * One POST through `agent` and the first bytes of its answer; `signal` abandons it (a killed worker) with the
 * signal's reason. The seam between the webhook sender and its HTTP client (ADR 081): `postWithRequest` is the
 * plain way, `postWithDispatch` the one the sender uses.
 */
export type PostOnce = (agent: Agent, url: URL, init: PostInit, signal?: AbortSignal) => Promise<Exchange>;

const timeoutError = () => new DOMException('The operation was aborted due to timeout', 'TimeoutError');

/** The plain way: undici's `request`, its body read until the preview is full. */
export const postWithRequest: PostOnce = async (agent, url, init, signal) => {
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
};

/** Ends the read once the preview is full; not a failure. */
class PreviewFull extends Error {}

/**
 * The same exchange through `agent.dispatch` with a handler of undici's dispatch-handler interface, without the
 * body stream, combined abort signal and response object `request` builds per send: the server's CPU per
 * delivery is lower by the figure ADR 081 cites.
 */
export const postWithDispatch: PostOnce = (agent, url, init, signal) =>
  new Promise((resolve, reject) => {
    let controller: Dispatcher.DispatchController | null = null;
    let early: Error | null = null; // a reason that came before the request reached a connection
    let statusCode = 0;
    let location: string | null = null;
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (error: Error | null) => {
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
    // Before the request is handed to a connection there is nothing to abort yet: fail now, and abort it there.
    const stop = (reason: Error) => {
      if (controller) return controller.abort(reason);
      early = reason;
      finish(reason);
    };
    const timer = setTimeout(() => stop(timeoutError()), init.timeoutMs);
    const onAbandon = () => stop(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal?.addEventListener('abort', onAbandon, { once: true });
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
        onRequestStart(started) {
          controller = started;
          if (early) started.abort(early);
        },
        onResponseStart(_controller, code, headers) {
          statusCode = code;
          location = typeof headers.location === 'string' ? headers.location : null;
        },
        onResponseData(ongoing, chunk) {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= init.previewBytes) ongoing.abort(new PreviewFull());
        },
        onResponseEnd() {
          finish(null);
        },
        onResponseError(_controller, error) {
          finish(error);
        },
      },
    );
  });
