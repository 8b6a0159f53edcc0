import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
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

export interface OpenAiAdapterConfig {
  apiKey: string;
  /** `OPENAI_BASE_URL`: OpenAI's API or any compatible server, ending in `/v1`. */
  baseURL: string;
  model: string;
  /** Upper bound of the answer's tokens (`max_completion_tokens`): what a call is budgeted for. */
  maxTokens: number;
}

const ERRORS = { APIError, APIUserAbortError, APIConnectionTimeoutError, APIConnectionError } as unknown as SdkErrors;

/** What is read of a Chat Completions answer; anything else in it is ignored. */
const completionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullish(), refusal: z.string().nullish() }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
});

const usageSchema = z.object({
  usage: z.object({ prompt_tokens: z.unknown(), completion_tokens: z.unknown() }).partial(),
});

/**
 * OpenAI Chat Completions: one call with a strict `json_schema` response format; the answer is the JSON in
 * `choices[0].message.content`. The SDK retries once on 429/5xx, waiting what Retry-After says (up to 60 s,
 * its own backoff beyond that). The answer is read raw and checked here (content type, JSON, envelope).
 */
export class OpenAiAdapter implements ModelAdapter {
  readonly name = 'openai' as const;
  readonly model: string;
  private readonly client: OpenAI;
  private readonly maxTokens: number;

  constructor(config: OpenAiAdapterConfig) {
    this.model = config.model;
    this.maxTokens = config.maxTokens;
    this.client = new OpenAI({
      apiKey: config.apiKey,
      baseURL: config.baseURL,
      // Explicit, so nothing is read from the process environment behind the config's back.
      organization: null,
      project: null,
      maxRetries: 1,
      defaultHeaders: { 'User-Agent': USER_AGENT },
      fetchOptions: NO_REDIRECTS,
    });
  }

  private body(call: JsonCall) {
    return {
      model: this.model,
      max_completion_tokens: this.maxTokens,
      messages: [
        { role: 'system' as const, content: call.system },
        { role: 'user' as const, content: call.user },
      ],
      response_format: {
        type: 'json_schema' as const,
        json_schema: { name: call.name, strict: true, schema: call.schema },
      },
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
        await this.client.chat.completions
          .create(body, { timeout: attemptTimeoutMs(options.timeoutMs), signal })
          .asResponse(),
      ),
    );
    const { envelope, usage } = parseEnvelope(who, json, completionSchema, (raw) => {
      const reported = usageSchema.safeParse(raw).data?.usage;
      return {
        inputTokens: tokens(reported?.prompt_tokens, budget.inputTokens),
        outputTokens: tokens(reported?.completion_tokens, budget.outputTokens),
      };
    });
    const choice = envelope.choices[0] as (typeof envelope.choices)[number];
    if (choice.message.refusal)
      throw new ModelCallError(this.name, this.model, 'invalid_answer', 'the model refused to answer', { usage });
    if (choice.finish_reason === 'length')
      throw new ModelCallError(this.name, this.model, 'invalid_answer', 'the answer was cut at its token bound', {
        usage,
      });
    let document: unknown;
    try {
      document = JSON.parse(choice.message.content ?? '');
    } catch {
      throw new ModelCallError(this.name, this.model, 'invalid_answer', 'the answer is not JSON', { usage });
    }
    return { document, usage };
  }
}
