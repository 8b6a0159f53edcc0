/** The answers of the fake model APIs (fake-llm.ts), per scripted behaviour, in each API's wire format. */

export type LlmApi = 'openai' | 'anthropic';

export interface UsageTokens {
  inputTokens: number;
  outputTokens: number;
}

/** A task as the request's last user message lists it (contract, "Area C: scheduling runs and decisions"). */
export interface FakeLlmTask {
  task_id: string;
  title?: string;
  candidates: { index: number; start: string; end: string }[];
}

/** Which candidate index a task gets; undefined leaves the task out of the answer. */
export type PickRule = 'first' | 'last' | ((task: FakeLlmTask, position: number) => number | undefined);

/**
 * What the fake does with one request. Answers carry `usage` (given, else derived from the sizes of the
 * request and the answer: a quarter of their bytes, rounded up) and record it on the request.
 */
export type LlmBehavior =
  /** `delayMs` holds the answer back that long (a slow model, for races between concurrent calls). */
  | { kind: 'pick'; pick?: PickRule; usage?: UsageTokens; delayMs?: number }
  /** The first task's pick is an index past its last candidate; the others take their first. */
  | { kind: 'invalid_index'; usage?: UsageTokens }
  /** The first task gets no choice at all; the others take their first. */
  | { kind: 'missing_pick'; usage?: UsageTokens }
  /** OpenAI: prose instead of JSON in the content. Anthropic: a text block and no tool_use block. */
  | { kind: 'non_json'; usage?: UsageTokens }
  /** Well-formed JSON that does not fit the answer document (`choices` not an array). */
  | { kind: 'wrong_shape'; usage?: UsageTokens }
  /**
   * Exactly this answer document (OpenAI: its JSON as the content; Anthropic: the tool call's input), e.g. two
   * choices for one task; `document` may be built from the request's tasks.
   */
  | { kind: 'answer'; document: unknown | ((tasks: FakeLlmTask[]) => unknown); usage?: UsageTokens }
  /** An error answer in the API's own shape, e.g. 500, or 429 with `retryAfter: '1'` (seconds). */
  | { kind: 'error'; status: number; retryAfter?: string; message?: string }
  /** Never answers (for timeouts); the connection stays open until the client gives up or the fake closes. */
  | { kind: 'hang' }
  /**
   * Exactly this HTTP answer, whatever the API: what a proxy, a captive portal or a broken compatible server
   * sends (an HTML page with 200, an empty body, `null`, a redirect with `location`, an envelope of the wrong
   * shape).
   */
  | { kind: 'raw'; status: number; body: string; contentType?: string; headers?: Record<string, string> };

export interface LlmReply {
  status: number;
  body: string;
  contentType?: string;
  headers?: Record<string, string>;
  usage?: UsageTokens;
}

let answers = 0;

export function replyFor(api: LlmApi, behavior: LlmBehavior, request: unknown): LlmReply {
  if (behavior.kind === 'hang') throw new Error('a hanging request has no reply');
  if (behavior.kind === 'error') return errorAnswer(api, behavior);
  if (behavior.kind === 'raw') {
    const { status, body, contentType, headers } = behavior;
    return { status, body, ...(contentType ? { contentType } : {}), ...(headers ? { headers } : {}) };
  }
  const answer = modelAnswer(behavior, tasksOf(request));
  const requestBytes = Buffer.byteLength(JSON.stringify(request));
  const answerBytes = Buffer.byteLength(typeof answer === 'string' ? answer : JSON.stringify(answer));
  const usage = behavior.usage ?? {
    inputTokens: Math.ceil(requestBytes / 4),
    outputTokens: Math.ceil(answerBytes / 4),
  };
  const model = String((request as { model?: unknown }).model);
  answers += 1;
  const body = api === 'openai' ? openaiAnswer(model, answer, usage) : anthropicAnswer(model, request, answer, usage);
  return { status: 200, body: JSON.stringify(body), usage };
}

/** The model's output: an answer document, or prose when the behaviour is `non_json`. */
function modelAnswer(
  behavior: Exclude<LlmBehavior, { kind: 'hang' | 'error' | 'raw' }>,
  tasks: FakeLlmTask[],
): unknown {
  const choose = (rule: PickRule) =>
    tasks.flatMap((task, position) => {
      const candidate = pickIndex(rule, task, position);
      return candidate === undefined
        ? []
        : [
            {
              task_id: task.task_id,
              candidate,
              rationale: `Fits ${task.title ?? 'the task'} into candidate ${candidate}.`,
            },
          ];
    });
  switch (behavior.kind) {
    case 'pick':
      return { choices: choose(behavior.pick ?? 'first') };
    case 'invalid_index':
      return { choices: choose((task, position) => (position === 0 ? task.candidates.length + 3 : firstIndex(task))) };
    case 'missing_pick':
      return { choices: choose((task, position) => (position === 0 ? undefined : firstIndex(task))) };
    case 'non_json':
      return 'Sure! I would put every task into its first candidate slot.';
    case 'wrong_shape':
      return { choices: 'first candidate for every task' };
    case 'answer':
      return typeof behavior.document === 'function' ? behavior.document(tasks) : behavior.document;
  }
}

function pickIndex(rule: PickRule, task: FakeLlmTask, position: number): number | undefined {
  if (rule === 'first') return firstIndex(task);
  if (rule === 'last') return task.candidates.at(-1)?.index;
  return rule(task, position);
}

const firstIndex = (task: FakeLlmTask) => task.candidates[0]?.index;

function tasksOf(request: unknown): FakeLlmTask[] {
  const messages = (request as { messages?: { role?: string; content?: unknown }[] }).messages ?? [];
  const last = [...messages].reverse().find((m) => m.role === 'user');
  const text =
    typeof last?.content === 'string'
      ? last.content
      : Array.isArray(last?.content)
        ? last.content.map((p: { text?: string }) => p.text ?? '').join('')
        : '';
  try {
    const tasks = (JSON.parse(text) as { tasks?: unknown }).tasks;
    return Array.isArray(tasks) ? (tasks as FakeLlmTask[]) : [];
  } catch {
    return [];
  }
}

function openaiAnswer(model: string, answer: unknown, usage: UsageTokens) {
  return {
    id: `chatcmpl-fake${answers}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: typeof answer === 'string' ? answer : JSON.stringify(answer),
          refusal: null,
        },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: {
      prompt_tokens: usage.inputTokens,
      completion_tokens: usage.outputTokens,
      total_tokens: usage.inputTokens + usage.outputTokens,
    },
    system_fingerprint: 'fp_fake',
  };
}

function anthropicAnswer(model: string, request: unknown, answer: unknown, usage: UsageTokens) {
  const toolChoice = (request as { tool_choice?: { type?: string; name?: string } }).tool_choice;
  const forcedTool = toolChoice?.type === 'tool' ? toolChoice.name : undefined;
  const content =
    typeof answer === 'string' || forcedTool === undefined
      ? [{ type: 'text', text: typeof answer === 'string' ? answer : JSON.stringify(answer) }]
      : [{ type: 'tool_use', id: `toolu_fake${answers}`, name: forcedTool, input: answer }];
  return {
    id: `msg_fake${answers}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: content[0]?.type === 'tool_use' ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens },
  };
}

function errorAnswer(api: LlmApi, behavior: { status: number; retryAfter?: string; message?: string }): LlmReply {
  const headers: Record<string, string> = behavior.retryAfter ? { 'retry-after': behavior.retryAfter } : {};
  const limited = behavior.status === 429;
  const message = behavior.message ?? (limited ? 'Rate limit reached, retry later.' : 'The server had an error.');
  if (api === 'openai') {
    const error = limited
      ? { message, type: 'requests', param: null, code: 'rate_limit_exceeded' }
      : { message, type: 'server_error', param: null, code: null };
    return { status: behavior.status, body: JSON.stringify({ error }), headers };
  }
  const type = limited ? 'rate_limit_error' : behavior.status === 529 ? 'overloaded_error' : 'api_error';
  return { status: behavior.status, body: JSON.stringify({ type: 'error', error: { type, message } }), headers };
}
