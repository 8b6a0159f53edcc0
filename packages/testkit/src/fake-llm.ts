import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { type LlmApi, type LlmBehavior, type LlmReply, replyFor, type UsageTokens } from './fake-llm-replies.js';

export type { FakeLlmTask, LlmApi, LlmBehavior, PickRule, UsageTokens } from './fake-llm-replies.js';

/** One request the fake received, with what it answered. */
export interface RecordedLlmRequest {
  /** 1-based order of arrival. */
  seq: number;
  api: LlmApi;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (null when it was not JSON). */
  body: unknown;
  receivedAtMs: number;
  /** The behaviour applied; undefined for requests refused before one was picked (401, 400, 404). */
  behavior?: LlmBehavior;
  status: number;
  /** Token usage the answer reported (none for error answers and hangs). */
  usage?: UsageTokens;
}

export interface FakeLlmOptions {
  /** Key the fake accepts (Bearer for OpenAI; x-api-key or Bearer for Anthropic). Default `test-llm-key`. */
  apiKey?: string;
  /** Used when the queue is empty. Default: every task takes its first candidate. */
  defaultBehavior?: LlmBehavior;
}

/**
 * An HTTP fake of the two model APIs the scheduler calls, speaking their wire format: OpenAI Chat Completions
 * (`POST /v1/chat/completions`, Bearer key, answer in `choices[0].message.content`, usage
 * `prompt_tokens`/`completion_tokens`) and Anthropic Messages (`POST /v1/messages`, `x-api-key` or Bearer key and
 * `anthropic-version`, answer in a `tool_use` block, usage `input_tokens`/`output_tokens`). Its "model" reads
 * the request's last user message (the contract's `{ tasks: [...] }`) and answers as scripted. Errors come in
 * each API's own error shape with a `request-id`. Listens on an ephemeral port.
 */
export class FakeLlmServer {
  readonly requests: RecordedLlmRequest[] = [];
  private readonly queue: LlmBehavior[] = [];
  private defaultBehavior: LlmBehavior;
  private readonly hanging = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    /** Base URL of the server, e.g. `http://127.0.0.1:41234`. */
    readonly url: string,
    readonly apiKey: string,
    options: FakeLlmOptions,
  ) {
    this.defaultBehavior = options.defaultBehavior ?? { kind: 'pick', pick: 'first' };
  }

  /** What `OPENAI_BASE_URL` should be (the SDK appends `/chat/completions`). */
  get openaiBaseUrl(): string {
    return `${this.url}/v1`;
  }

  /** What `ANTHROPIC_BASE_URL` should be (the SDK appends `/v1/messages`). */
  get anthropicBaseUrl(): string {
    return this.url;
  }

  static async start(options: FakeLlmOptions = {}): Promise<FakeLlmServer> {
    let fake: FakeLlmServer | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        // `fake` is assigned before listen() resolves, so no request arrives without it.
        (fake as FakeLlmServer).handle(req, res, Buffer.concat(chunks).toString('utf8'));
      });
    });
    server.keepAliveTimeout = 1_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    fake = new FakeLlmServer(server, `http://127.0.0.1:${port}`, options.apiKey ?? 'test-llm-key', options);
    return fake;
  }

  /** Behaviours for the next requests, one each, in order; afterwards the default applies again. */
  enqueue(...behaviors: LlmBehavior[]): void {
    this.queue.push(...behaviors);
  }

  setDefault(behavior: LlmBehavior): void {
    this.defaultBehavior = behavior;
  }

  /** Forget recorded requests and queued behaviours (between tests sharing one server). */
  reset(): void {
    this.requests.length = 0;
    this.queue.length = 0;
  }

  /** The JSON document of the last user message of a recorded request (what the contract fixes). */
  static lastUserDocument(request: RecordedLlmRequest): unknown {
    const messages = (request.body as { messages?: { role: string; content: unknown }[] } | null)?.messages ?? [];
    const last = [...messages].reverse().find((m) => m.role === 'user');
    return last === undefined ? undefined : JSON.parse(textOf(last.content));
  }

  private handle(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const path = (req.url ?? '/').split('?')[0] as string;
    const api: LlmApi = path === '/v1/messages' ? 'anthropic' : 'openai';
    let body: unknown = null;
    try {
      body = JSON.parse(raw);
    } catch {
      body = null;
    }
    const record: RecordedLlmRequest = {
      seq: this.requests.length + 1,
      api,
      method: req.method ?? 'GET',
      path,
      headers: req.headers,
      body,
      receivedAtMs: Date.now(),
      status: 0,
    };
    this.requests.push(record);
    const refusal = this.refuse(record);
    if (refusal) {
      this.send(res, record, refusal);
      return;
    }
    const behavior = this.queue.shift() ?? this.defaultBehavior;
    record.behavior = behavior;
    if (behavior.kind === 'hang') {
      // Never answered; the client's timeout or close() ends it.
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    const reply = replyFor(api, behavior, body);
    const delayMs = behavior.kind === 'pick' ? (behavior.delayMs ?? 0) : 0;
    if (delayMs === 0) this.send(res, record, reply);
    else {
      this.hanging.add(res);
      setTimeout(() => {
        this.hanging.delete(res);
        this.send(res, record, reply);
      }, delayMs);
    }
  }

  /** What the real APIs refuse before a model runs: unknown path, bad key, missing fields. */
  private refuse(record: RecordedLlmRequest): LlmReply | undefined {
    const { api, method, path, headers } = record;
    const known = method === 'POST' && (path === '/v1/chat/completions' || path === '/v1/messages');
    if (!known) return errorReply(api, 404, 'not_found_error', `Unknown request URL: ${method} ${path}`);
    // Anthropic takes `x-api-key` or, as its current SDK sends it, `Authorization: Bearer`.
    const bearer = /^Bearer (.+)$/.exec(String(headers.authorization ?? ''))?.[1];
    const key = api === 'openai' ? bearer : (headers['x-api-key'] ?? bearer);
    if (key !== this.apiKey) return errorReply(api, 401, 'authentication_error', 'Incorrect API key provided');
    const body = record.body as Record<string, unknown> | null;
    if (api === 'anthropic' && !headers['anthropic-version'])
      return errorReply(api, 400, 'invalid_request_error', 'anthropic-version: header is required');
    if (!body || typeof body.model !== 'string' || !Array.isArray(body.messages))
      return errorReply(api, 400, 'invalid_request_error', 'model and messages are required');
    if (api === 'anthropic' && typeof body.max_tokens !== 'number')
      return errorReply(api, 400, 'invalid_request_error', 'max_tokens: Field required');
    return undefined;
  }

  private send(res: ServerResponse, record: RecordedLlmRequest, reply: LlmReply): void {
    record.status = reply.status;
    if (reply.usage) record.usage = reply.usage;
    if (res.destroyed) return;
    res.writeHead(reply.status, {
      'content-type': reply.contentType ?? 'application/json',
      [record.api === 'openai' ? 'x-request-id' : 'request-id']: `req_fake_${record.seq}`,
      ...reply.headers,
    });
    res.end(reply.body);
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function errorReply(api: LlmApi, status: number, type: string, message: string): LlmReply {
  const body =
    api === 'openai'
      ? { error: { message, type, param: null, code: null } }
      : { type: 'error', error: { type, message } };
  return { status, body: JSON.stringify(body) };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((part: { type?: string; text?: string }) => (part.type === 'text' ? (part.text ?? '') : ''))
      .join('');
  return '';
}

/** USD per million tokens of the fake LLM's `test-model`. */
export const FAKE_LLM_PRICE = { input: 1, output: 2 };

/** The scheduler's model variables for the fake LLM: OpenAI (and, when asked, Anthropic) as `test-model`. */
export function fakeLlmEnv(
  llm: Pick<FakeLlmServer, 'apiKey' | 'openaiBaseUrl' | 'anthropicBaseUrl'>,
  options: { anthropic?: boolean } = {},
): Record<string, string> {
  return {
    OPENAI_API_KEY: llm.apiKey,
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    OPENAI_MODEL: 'test-model',
    ...(options.anthropic
      ? { ANTHROPIC_API_KEY: llm.apiKey, ANTHROPIC_BASE_URL: llm.anthropicBaseUrl, ANTHROPIC_MODEL: 'test-model' }
      : {}),
    LLM_PRICES: JSON.stringify({ 'test-model': FAKE_LLM_PRICE }),
  };
}
