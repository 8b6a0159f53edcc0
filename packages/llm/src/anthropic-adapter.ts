import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import {
  CHOOSE_SLOTS_JSON_SCHEMA,
  CHOOSE_SLOTS_TOOL_NAME,
  type ChooseSlotsRequest,
  SYSTEM_PROMPT,
} from './documents.js';
import { ModelCallError } from './errors.js';
import {
  attemptTimeoutMs,
  callWithDeadline,
  checkRequest,
  parseAnswer,
  type SdkErrors,
  tokens,
  USER_AGENT,
} from './sdk-call.js';
import type { ChooseSlotsOptions, ChooseSlotsResult, ModelAdapter } from './types.js';

export interface AnthropicAdapterConfig {
  apiKey: string;
  /** `ANTHROPIC_BASE_URL`, without `/v1` (the SDK adds `/v1/messages`). */
  baseURL: string;
  model: string;
  /** Upper bound of the answer's tokens (the Messages API requires one). */
  maxTokens: number;
}

const ERRORS = { APIError, APIUserAbortError, APIConnectionTimeoutError, APIConnectionError } as unknown as SdkErrors;

/**
 * Anthropic Messages: one call forcing the `choose_slots` tool; the answer is that tool_use block's `input`.
 * The SDK retries once on 429/5xx (529 overloaded included), waiting what Retry-After says.
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
    });
  }

  async chooseSlots(request: ChooseSlotsRequest, options: ChooseSlotsOptions): Promise<ChooseSlotsResult> {
    const body = checkRequest(request);
    const who = { provider: this.name, model: this.model, errors: ERRORS };
    const message = await callWithDeadline(who, options, (signal) =>
      this.client.messages.create(
        {
          model: this.model,
          max_tokens: this.maxTokens,
          system: SYSTEM_PROMPT,
          messages: [{ role: 'user', content: JSON.stringify(body) }],
          tools: [
            {
              name: CHOOSE_SLOTS_TOOL_NAME,
              description: 'Record the chosen candidate slot of every task.',
              input_schema: CHOOSE_SLOTS_JSON_SCHEMA as unknown as Anthropic.Tool.InputSchema,
            },
          ],
          tool_choice: { type: 'tool', name: CHOOSE_SLOTS_TOOL_NAME },
        },
        { timeout: attemptTimeoutMs(options.timeoutMs), signal },
      ),
    );
    const usage = {
      inputTokens: tokens(message.usage?.input_tokens),
      outputTokens: tokens(message.usage?.output_tokens),
    };
    const call = message.content.find((block) => block.type === 'tool_use' && block.name === CHOOSE_SLOTS_TOOL_NAME);
    if (call?.type !== 'tool_use')
      throw new ModelCallError(this.name, this.model, 'invalid_answer', `no ${CHOOSE_SLOTS_TOOL_NAME} tool call`, {
        usage,
      });
    if (message.stop_reason === 'max_tokens')
      throw new ModelCallError(this.name, this.model, 'invalid_answer', 'the answer was cut at max_tokens', { usage });
    return { answer: parseAnswer(who, call.input, usage), usage };
  }
}
