import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import { z } from 'zod';
import type { ChooseSlotsRequest } from './documents.js';
import { ModelCallError } from './errors.js';
import {
  attemptTimeoutMs,
  callBudget,
  callWithDeadline,
  checkRequest,
  chooseSlotsCall,
  NO_REDIRECTS,
  parseAnswer,
  parseEnvelope,
  readJson,
  type SdkErrors,
  tokens,
  USER_AGENT,
} from './sdk-call.js';
import type { ChooseSlotsOptions, ChooseSlotsResult, JsonCall, JsonCallResult, ModelAdapter, Usage } from './types.js';

export interface AnthropicAdapterConfig {
  apiKey: string;
  /** `ANTHROPIC_BASE_URL`, without `/v1` (the SDK adds `/v1/messages`). */
  baseURL: string;
  model: string;
  /** Upper bound of the answer's tokens (the Messages API requires one). */
  maxTokens: number;
}

/** What is read of a Messages answer: its content blocks (an array, whatever a proxy says) and stop reason. */
const messageSchema = z.object({
  content: z.array(z.looseObject({ type: z.string(), name: z.string().optional(), input: z.unknown().optional() })),
  stop_reason: z.string().nullish(),
});

const usageSchema = z.object({
  usage: z.object({ input_tokens: z.unknown(), output_tokens: z.unknown() }).partial(),
});

const ERRORS = { APIError, APIUserAbortError, APIConnectionTimeoutError, APIConnectionError } as unknown as SdkErrors;

/**
 * Anthropic Messages: one call forcing the call's tool (`choose_slots` for a run); the answer is that tool_use
 * block's `input`.
 * The SDK retries once on 429/5xx (529 overloaded included), waiting what Retry-After says. The answer is read
 * raw and checked here (content type, JSON, envelope).
 */
export class AnthropicAdapter implements ModelAdapter {
  readonly name = 'anthropic' as const;
  readonly model: string;
  private readonly client: Anthropic;
  private readonly maxTokens: number;

  constructor(config: AnthropicAdapterConfig) {
    this.model = config.model;
    this.maxTokens = config.maxTokens;
    this.client = new Anthropic({
      apiKey: config.apiKey,
      // Explicit, so no ANTHROPIC_AUTH_TOKEN of the process environment is sent instead.
      authToken: null,
      baseURL: config.baseURL,
      maxRetries: 1,
      defaultHeaders: { 'User-Agent': USER_AGENT },
      fetchOptions: NO_REDIRECTS,
    });
  }

  private body(call: JsonCall) {
    return {
      model: this.model,
      max_tokens: this.maxTokens,
      system: call.system,
      messages: [{ role: 'user' as const, content: call.user }],
      tools: [
        {
          name: call.name,
          description: call.description,
          input_schema: call.schema as unknown as Anthropic.Tool.InputSchema,
        },
      ],
      tool_choice: { type: 'tool' as const, name: call.name },
    };
  }

  budget(request: ChooseSlotsRequest): Usage {
    return this.budgetOf(chooseSlotsCall(request));
  }

  budgetOf(call: JsonCall): Usage {
    return callBudget(this.body(call), this.maxTokens);
  }

  async chooseSlots(request: ChooseSlotsRequest, options: ChooseSlotsOptions): Promise<ChooseSlotsResult> {
    const { document, usage } = await this.callJson(chooseSlotsCall(checkRequest(request)), options);
    return { answer: parseAnswer({ provider: this.name, model: this.model }, document, usage), usage };
  }

  async callJson(call: JsonCall, options: ChooseSlotsOptions): Promise<JsonCallResult> {
    const body = this.body(call);
    const budget = callBudget(body, this.maxTokens);
    const who = { provider: this.name, model: this.model, errors: ERRORS };
    const json = await callWithDeadline(who, options, async (signal) =>
      readJson(
        who,
        await this.client.messages.create(body, { timeout: attemptTimeoutMs(options.timeoutMs), signal }).asResponse(),
      ),
    );
    const { envelope, usage } = parseEnvelope(who, json, messageSchema, (raw) => {
      const reported = usageSchema.safeParse(raw).data?.usage;
      return {
        inputTokens: tokens(reported?.input_tokens, budget.inputTokens),
        outputTokens: tokens(reported?.output_tokens, budget.outputTokens),
      };
    });
    const toolUse = envelope.content.find((block) => block.type === 'tool_use' && block.name === call.name);
    if (!toolUse)
      throw new ModelCallError(this.name, this.model, 'invalid_answer', `no ${call.name} tool call`, { usage });
    if (envelope.stop_reason === 'max_tokens')
      throw new ModelCallError(this.name, this.model, 'invalid_answer', 'the answer was cut at max_tokens', { usage });
    return { document: toolUse.input, usage };
  }
}
