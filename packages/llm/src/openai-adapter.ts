import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
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

export interface OpenAiAdapterConfig {
  apiKey: string;
  /** `OPENAI_BASE_URL`: OpenAI's API or any compatible server, ending in `/v1`. */
  baseURL: string;
  model: string;
}

const ERRORS = { APIError, APIUserAbortError, APIConnectionTimeoutError, APIConnectionError } as unknown as SdkErrors;

/**
 * OpenAI Chat Completions: one call with a strict `json_schema` response format; the answer is the JSON in
 * `choices[0].message.content`. The SDK retries once on 429/5xx, waiting what Retry-After says (up to 60 s,
 * its own backoff beyond that).
 */
export class OpenAiAdapter implements ModelAdapter {
  readonly name = 'openai' as const;
  readonly model: string;
  private readonly client: OpenAI;

  constructor(config: OpenAiAdapterConfig) {
    this.model = config.model;
    this.client = new OpenAI({
      apiKey: config.apiKey,
      baseURL: config.baseURL,
      // Explicit, so nothing is read from the process environment behind the config's back.
      organization: null,
      project: null,
      maxRetries: 1,
      defaultHeaders: { 'User-Agent': USER_AGENT },
    });
  }

  async chooseSlots(request: ChooseSlotsRequest, options: ChooseSlotsOptions): Promise<ChooseSlotsResult> {
    const body = checkRequest(request);
    const who = { provider: this.name, model: this.model, errors: ERRORS };
    const completion = await callWithDeadline(who, options, (signal) =>
      this.client.chat.completions.create(
        {
          model: this.model,
          messages: [
            { role: 'system', content: SYSTEM_PROMPT },
            { role: 'user', content: JSON.stringify(body) },
          ],
          response_format: {
            type: 'json_schema',
            json_schema: { name: CHOOSE_SLOTS_TOOL_NAME, strict: true, schema: CHOOSE_SLOTS_JSON_SCHEMA },
          },
        },
        { timeout: attemptTimeoutMs(options.timeoutMs), signal },
      ),
    );
    const usage = {
      inputTokens: tokens(completion.usage?.prompt_tokens),
      outputTokens: tokens(completion.usage?.completion_tokens),
    };
    const message = completion.choices[0]?.message;
    if (message?.refusal)
      throw new ModelCallError(this.name, this.model, 'invalid_answer', 'the model refused to answer', { usage });
    let document: unknown;
    try {
      document = JSON.parse(message?.content ?? '');
    } catch {
      throw new ModelCallError(this.name, this.model, 'invalid_answer', 'the answer is not JSON', { usage });
    }
    return { answer: parseAnswer(who, document, usage), usage };
  }
}
