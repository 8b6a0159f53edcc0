/**
 * The model agent, one call (contract "Area C: scheduling runs and decisions", ADR 054): the solver plans the
 * call's tasks, proposes up to 5 feasible candidate slots per task (per block for a parent), the model picks
 * one per task, and every pick is checked again against every hard rule before it is kept. Anything wrong
 * with a pick, or with the whole call, falls back to the solver for the tasks concerned, with the reason in
 * the rationale. Pure apart from the adapter's one HTTP call: no clock, no storage.
 */
import {
  candidatesFor,
  checkProposal,
  type FixedSlot,
  type Interval,
  mergeIntervals,
  prepare,
  type SolverInput,
  type SolverTask,
  solve,
  subtractIntervals,
  type Unit,
  type UnscheduledReason,
} from '@routinely/scheduling';
import { type ChooseSlotsRequest, MAX_RATIONALE_LENGTH, matchPicks, type PickOutcome } from './documents.js';
import { ModelCallError } from './errors.js';
import { plainText } from './plain-text.js';
import type { ModelAdapter, Usage } from './types.js';

export interface ModelPlacementArgs {
  adapter: ModelAdapter;
  /** Tasks of THIS call plus everything solve() takes (free, window, now, dependencies, fixed, done). */
  input: SolverInput;
  /** Earlier placements of the same run: taken out of free time, serve as predecessors. */
  placed?: readonly FixedSlot[];
  /** Task id -> title for the request document. */
  titles: ReadonlyMap<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  /**
   * Asked with the call's budget (the most it can bill) just before the call: the caller reserves it against a
   * spend cap. Refused, the model is not asked and every task falls back to the solver with `reason`.
   */
  admit?: (budget: Usage) => Promise<{ allowed: true } | { allowed: false; reason: string }>;
}

export interface ModelPlacement {
  taskId: string;
  start: Date;
  end: Date;
  source: 'agent' | 'solver';
  rationale: string;
}

export interface ModelPlacementResult {
  placements: ModelPlacement[];
  unscheduled: { taskId: string; reason: UnscheduledReason }[];
  /** Null when the provider answered nothing usable for pricing (timeout, network, error answers). */
  usage: Usage | null;
  /**
   * Why the whole call fell back, if it did: `timeout`, `aborted`, `network`, `rate_limited`, `http_<status>`
   * (5xx after the retry, or another refusal), `invalid_answer` (not JSON, wrong shape, no tool call), or
   * `not_admitted` (`admit` refused the call; no request was sent).
   */
  failure?: string;
}

/** Candidates offered per task (contract: up to 5). */
export const MAX_CANDIDATES = 5;

type SolverUnit = Unit<SolverTask>;

export async function placeWithModel(args: ModelPlacementArgs): Promise<ModelPlacementResult> {
  const input = withEarlierPlacements(args.input, args.placed ?? []);
  const plan = solve(input);
  const planned = new Map(plan.placements.map((p) => [p.taskId, p]));
  const units = inDependencyOrder(
    prepare(input).units.filter((u) => planned.has(u.id)),
    (id) => planned.get(id)?.start.getTime() ?? 0,
  );
  // Each block's candidates avoid every other task's planned slot, so no pick can take the slot another task
  // falls back to; predecessors are read at their planned slots (a moved predecessor is caught by the re-check).
  const offers = units.map((unit) => {
    const members = new Set(unit.members.map((m) => m.task.id));
    const others = plan.placements
      .filter((p) => !members.has(p.taskId))
      .map((p) => ({ id: p.taskId, start: p.start, end: p.end }));
    return { unit, candidates: candidatesFor(unit.root, input, others, MAX_CANDIDATES) };
  });
  const request: ChooseSlotsRequest = {
    tasks: offers
      .filter((o) => o.candidates.length > 0)
      .map(({ unit, candidates }) => ({
        task_id: unit.id,
        title: args.titles.get(unit.id) ?? '',
        priority: unit.root.priority,
        duration_min: Math.round(unit.duration / 60_000),
        deadline_at: unit.root.deadline?.toISOString() ?? null,
        candidates: candidates.map((c, index) => ({
          index,
          start: c.start.toISOString(),
          end: c.end.toISOString(),
        })),
      })),
  };
  const call =
    request.tasks.length > 0 ? await askModel(args, request) : { picks: new Map<string, PickOutcome>(), usage: null };

  const accepted: FixedSlot[] = [];
  const placements: ModelPlacement[] = [];
  const unscheduled: ModelPlacementResult['unscheduled'] = [...plan.unscheduled];
  const title = (id: string) => args.titles.get(id) ?? id;
  const keep = (unit: SolverUnit, slots: FixedSlot[], source: ModelPlacement['source'], rationale: string) => {
    for (const slot of slots) {
      accepted.push(slot);
      const text = slot.id === unit.id ? rationale : `Inside the block of "${title(unit.id)}": ${rationale}`;
      placements.push({ taskId: slot.id, start: slot.start, end: slot.end, source, rationale: trim(text) });
    }
  };
  for (const { unit, candidates } of offers) {
    const pick: PickOutcome | undefined = call.picks.get(unit.id);
    let why: string;
    if ('failure' in call)
      why =
        call.failure === NOT_ADMITTED
          ? `model not asked: ${call.detail}`
          : `model call failed (${call.failure}: ${call.detail})`;
    else if (candidates.length === 0) why = 'no candidate slot to offer the model';
    else if (pick === undefined || pick.status === 'missing') why = 'model pick missing: the model chose no slot';
    else if (pick.status === 'invalid_candidate') why = `model pick invalid: ${pick.detail}`;
    else if (pick.status !== 'picked') why = `model pick ambiguous: ${pick.detail}`;
    else {
      const check = checkProposal(input, unit.id, new Date(pick.candidate.start), accepted);
      const breach = check.breaches[0];
      if (!breach) {
        keep(unit, check.slots, 'agent', pick.rationale || `The model chose candidate ${pick.candidate.index}.`);
        continue;
      }
      why = `model pick infeasible: candidate ${pick.candidate.index} breaks ${breach.rule} (${breach.detail})`;
    }
    const fallback = solverSlots(input, unit, planned.get(unit.id)?.start, accepted);
    if ('slots' in fallback) keep(unit, fallback.slots, 'solver', `${why}; solver placed it`);
    else for (const m of unit.members) unscheduled.push({ taskId: m.task.id, reason: fallback.reason });
  }
  placements.sort((a, b) => a.start.getTime() - b.start.getTime());
  const result: ModelPlacementResult = { placements, unscheduled, usage: call.usage };
  if ('failure' in call) result.failure = call.failure;
  return result;
}

type CallOutcome =
  | { picks: Map<string, PickOutcome>; usage: Usage }
  | { picks: Map<string, PickOutcome>; usage: null }
  | { picks: Map<string, PickOutcome>; usage: Usage | null; failure: string; detail: string };

const NOT_ADMITTED = 'not_admitted';

async function askModel(args: ModelPlacementArgs, request: ChooseSlotsRequest): Promise<CallOutcome> {
  if (args.admit) {
    const verdict = await args.admit(args.adapter.budget(request));
    if (!verdict.allowed) return { picks: new Map(), usage: null, failure: NOT_ADMITTED, detail: verdict.reason };
  }
  try {
    const { answer, usage } = await args.adapter.chooseSlots(request, {
      timeoutMs: args.timeoutMs,
      ...(args.signal ? { signal: args.signal } : {}),
    });
    return { picks: new Map(matchPicks(request, answer).map((p) => [p.task_id, p])), usage };
  } catch (error) {
    // Anything else is a bug of ours (a malformed request), not a provider failure: let it surface.
    if (!(error instanceof ModelCallError)) throw error;
    const http = error.failure === 'server_error' || error.failure === 'refused';
    const failure = http && error.status !== undefined ? `http_${error.status}` : error.failure;
    return { picks: new Map<string, PickOutcome>(), usage: error.usage ?? null, failure, detail: error.detail };
  }
}

/**
 * The solver's slot for a unit whose pick was not kept: its planned slot when that still keeps every rule next
 * to what this call accepted so far, else its earliest feasible slot, else the solver's reason.
 */
function solverSlots(
  input: SolverInput,
  unit: SolverUnit,
  plannedStart: Date | undefined,
  accepted: readonly FixedSlot[],
): { slots: FixedSlot[] } | { reason: UnscheduledReason } {
  for (const start of [plannedStart, candidatesFor(unit.root, input, accepted, 1)[0]?.start]) {
    if (!start) continue;
    const check = checkProposal(input, unit.id, start, accepted);
    if (check.breaches.length === 0) return { slots: check.slots };
  }
  const members = new Set(unit.members.map((m) => m.task.id));
  const alone = solve(
    withEarlierPlacements({ ...input, tasks: input.tasks.filter((t) => members.has(t.id)) }, accepted),
  );
  return { reason: alone.unscheduled.find((u) => u.taskId === unit.id)?.reason ?? 'no_slot_in_window' };
}

/** The input with earlier placements taken out of free time and kept as predecessors. */
function withEarlierPlacements(input: SolverInput, placed: readonly FixedSlot[]): SolverInput {
  if (placed.length === 0) return input;
  const taken = mergeIntervals(placed.map((p): Interval => ({ start: p.start, end: p.end })));
  return { ...input, fixed: [...(input.fixed ?? []), ...placed], free: subtractIntervals(input.free, taken) };
}

/** Units with every in-call predecessor first (Kahn's algorithm; ties by planned start). */
function inDependencyOrder(units: SolverUnit[], startOf: (id: string) => number): SolverUnit[] {
  const unitOf = new Map<string, string>();
  for (const u of units) for (const m of u.members) unitOf.set(m.task.id, u.id);
  const waiting = new Map(units.map((u) => [u.id, new Set<string>()]));
  for (const u of units)
    for (const { dep } of u.external) {
      const pred = unitOf.get(dep.dependsOnId);
      if (pred !== undefined && pred !== u.id) waiting.get(u.id)?.add(pred);
    }
  const out: SolverUnit[] = [];
  const left = [...units].sort((a, b) => startOf(a.id) - startOf(b.id));
  while (left.length > 0) {
    const done = new Set(out.map((u) => u.id));
    // A cycle cannot occur among planned units; taking the first one anyway keeps the loop finite.
    const next = Math.max(
      0,
      left.findIndex((u) => [...(waiting.get(u.id) ?? [])].every((id) => done.has(id))),
    );
    out.push(...left.splice(next, 1));
  }
  return out;
}

const trim = (text: string) => plainText(text, MAX_RATIONALE_LENGTH);
