import { z } from 'zod';
import { plainText } from './plain-text.js';

/**
 * The documents of a language-model run (contract, "Area C: scheduling runs and decisions"): the JSON of the
 * request's last user message and the answer the model must give, as zod schemas, plus the JSON Schema both
 * APIs are handed so the model is held to the same shape.
 */

const isoInstant = z.iso.datetime({ offset: true });

export const candidateSlotSchema = z.object({
  index: z.number().int().min(0),
  start: isoInstant,
  end: isoInstant,
});

export const chooseSlotsRequestSchema = z.object({
  tasks: z
    .array(
      z.object({
        task_id: z.string().min(1),
        title: z.string(),
        priority: z.number().int(),
        duration_min: z.number().int().positive(),
        deadline_at: isoInstant.nullable(),
        candidates: z.array(candidateSlotSchema).min(1),
      }),
    )
    .min(1),
});
export type ChooseSlotsRequest = z.infer<typeof chooseSlotsRequestSchema>;
export type ChooseSlotsTask = ChooseSlotsRequest['tasks'][number];
export type CandidateSlot = z.infer<typeof candidateSlotSchema>;

/** The answer document. Which picks are usable is decided per task by `matchPicks`, not here. */
export const chooseSlotsAnswerSchema = z.object({
  choices: z.array(
    z.object({
      task_id: z.string(),
      candidate: z.number().int(),
      rationale: z.string(),
    }),
  ),
});
export type ChooseSlotsAnswer = z.infer<typeof chooseSlotsAnswerSchema>;

/** The answer's JSON Schema (OpenAI `response_format`, strict; Anthropic `choose_slots` tool input). */
export const CHOOSE_SLOTS_JSON_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['choices'],
  properties: {
    choices: {
      type: 'array',
      description: 'Exactly one choice for every task of the request.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['task_id', 'candidate', 'rationale'],
        properties: {
          task_id: { type: 'string', description: 'The task_id of the task, copied from the request.' },
          candidate: { type: 'integer', description: 'The index of the chosen candidate slot of that task.' },
          rationale: { type: 'string', description: 'One short sentence: why this slot.' },
        },
      },
    },
  },
} as const;

export const CHOOSE_SLOTS_TOOL_NAME = 'choose_slots';

export const SYSTEM_PROMPT = [
  "You place a person's routine tasks into their calendar.",
  'The user message is a JSON document listing tasks; each task has candidate slots (UTC start and end),',
  'every one of which is already known to be free and to satisfy all hard rules.',
  'For every task choose exactly one candidate by its index, the slot the person would most likely pick:',
  'urgent and high-priority tasks (priority 1 is highest) earlier and well before their deadline,',
  'related tasks near each other, and a day that is not overloaded.',
  'Answer only with the choices document: task_id, the candidate index and a one-sentence rationale per task.',
].join(' ');

/** Longest rationale kept from a model (decisions store it; a model can ramble). */
export const MAX_RATIONALE_LENGTH = 500;

export type PickOutcome =
  | { task_id: string; status: 'picked'; candidate: CandidateSlot; rationale: string }
  /** `missing`: no choice for the task; `invalid_candidate`: an index the task does not have; `duplicate`:
   * two or more choices for one task (the model contradicted itself, none is taken). */
  | { task_id: string; status: 'missing' | 'invalid_candidate' | 'duplicate'; detail: string };

/**
 * The model's pick for every task of the request, in request order. Choices naming tasks the request does not
 * have are ignored. The engine still re-checks each picked slot against the hard rules before writing it.
 */
export function matchPicks(request: ChooseSlotsRequest, answer: ChooseSlotsAnswer): PickOutcome[] {
  const byTask = new Map<string, ChooseSlotsAnswer['choices']>();
  for (const choice of answer.choices) byTask.set(choice.task_id, [...(byTask.get(choice.task_id) ?? []), choice]);
  return request.tasks.map((task): PickOutcome => {
    const choices = byTask.get(task.task_id) ?? [];
    if (choices.length === 0) return { task_id: task.task_id, status: 'missing', detail: 'the model chose no slot' };
    if (choices.length > 1)
      return { task_id: task.task_id, status: 'duplicate', detail: `the model chose ${choices.length} slots` };
    const choice = choices[0] as ChooseSlotsAnswer['choices'][number];
    const candidate = task.candidates.find((c) => c.index === choice.candidate);
    if (!candidate)
      return {
        task_id: task.task_id,
        status: 'invalid_candidate',
        detail: `the model chose candidate ${choice.candidate}, which the task does not have`,
      };
    return {
      task_id: task.task_id,
      status: 'picked',
      candidate,
      rationale: plainText(choice.rationale, MAX_RATIONALE_LENGTH),
    };
  });
}
