import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  /** 1-based order of arrival at this receiver. */
  seq: number;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  json: unknown;
  /** Signature valid under one of the accepted secrets and timestamp within the window. */
  verified: boolean;
  verifyError: string | null;
  /** Receiver clock (unix ms) at arrival. */
  receivedAtMs: number;
  /** The status this receiver answered. */
  status: number;
}

export interface ReceiverReply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering (timeouts). */
  delayMs?: number;
}

export type Responder = (webhook: ReceivedWebhook) => ReceiverReply | Promise<ReceiverReply>;

export interface WebhookReceiverOptions {
  /** Secrets accepted (both during a rotation overlap). Read at every request. */
  secrets?: () => readonly string[];
  /** Replay window in seconds; older or future timestamps are rejected (spec: 300). */
  toleranceSeconds?: number;
  /** Receiver's clock in unix ms (defaults to the real one). */
  now?: () => number;
  responder?: Responder;
  /**
   * The address senders reach this machine at, when they do not run on it (a kind cluster reaches the host at
   * its Docker network's gateway): the receiver then listens on every interface. Default: loopback only, or
   * WEBHOOK_RECEIVER_HOST from the environment.
   */
  publicHost?: string;
}

/**
 * A webhook receiver as the spec tells receivers to behave: it hashes the exact bytes received, checks
 * `X-Service-Signature` (t=..,v1=..) in constant time against the accepted secrets, and rejects a
 * timestamp more than the window old or in the future with 401. Valid requests get the responder's answer.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private responder: Responder;
  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly options: WebhookReceiverOptions,
  ) {
    this.responder = options.responder ?? (() => ({ status: 200, body: 'ok' }));
  }

  static async start(options: WebhookReceiverOptions = {}): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        // `receiver` is assigned before listen() resolves, so no request arrives without it.
        void (receiver as WebhookReceiver)
          .handle(req.url ?? '/', req.headers, Buffer.concat(chunks))
          .then(async (reply) => {
            if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
            if (res.destroyed) return;
            res.writeHead(reply.status, reply.headers ?? { 'content-type': 'text/plain' });
            res.end(reply.body ?? '');
          });
      });
    });
    server.keepAliveTimeout = 1_000;
    const publicHost = options.publicHost ?? process.env.WEBHOOK_RECEIVER_HOST;
    await new Promise<void>((resolve) => server.listen(0, publicHost ? '0.0.0.0' : '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    receiver = new WebhookReceiver(server, `http://${publicHost ?? '127.0.0.1'}:${port}`, options);
    return receiver;
  }

  setResponder(responder: Responder): void {
    this.responder = responder;
  }

  private async handle(path: string, headers: IncomingHttpHeaders, raw: Buffer): Promise<ReceiverReply> {
    const nowMs = (this.options.now ?? Date.now)();
    const header = String(headers['x-service-signature'] ?? '');
    const verifyError = this.verify(header, raw, nowMs);
    let json: unknown = null;
    try {
      json = JSON.parse(raw.toString('utf8'));
    } catch {
      json = null;
    }
    const webhook: ReceivedWebhook = {
      seq: this.received.length + 1,
      path,
      headers,
      rawBody: raw.toString('utf8'),
      json,
      verified: verifyError === null,
      verifyError,
      receivedAtMs: nowMs,
      status: 0,
    };
    this.received.push(webhook);
    const reply = verifyError ? { status: 401, body: verifyError } : await this.responder(webhook);
    webhook.status = reply.status;
    return reply;
  }

  private verify(header: string, raw: Buffer, nowMs: number): string | null {
    const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2) as [string, string]));
    const t = Number(parts.t);
    if (!parts.t || !Number.isInteger(t) || !parts.v1) return 'malformed signature header';
    if (Math.abs(Math.floor(nowMs / 1000) - t) > (this.options.toleranceSeconds ?? 300))
      return 'timestamp outside window';
    const given = Buffer.from(parts.v1, 'hex');
    for (const secret of this.options.secrets?.() ?? []) {
      const expected = createHmac('sha256', secret).update(`${t}.`).update(raw).digest();
      if (given.length === expected.length && timingSafeEqual(given, expected)) return null;
    }
    return 'signature mismatch';
  }

  /** Resolves once at least `count` webhooks arrived. */
  async waitFor(count: number, timeoutMs = 15_000): Promise<ReceivedWebhook[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} webhooks, got ${this.received.length}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return this.received;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
