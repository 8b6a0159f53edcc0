import type { ModelAdapter } from '@routinely/llm';
import type { FixedSlot, SolverInput, UnscheduledReason } from '@routinely/scheduling';

/**
 * The seam between runs and the language-model placement of @routinely/llm (`placeWithModel`, issue 13's
 * agent): ONE model call for a batch of tasks, every pick re-checked against the hard rules, the solver taking
 * over per task on anything wrong. Runs depend on this type only; the composition root passes the function.
 */
export interface ModelPlacementArgs {
  adapter: ModelAdapter;
  input: SolverInput;
  /** Earlier placements of the run: taken out of the free time and usable as predecessors. */
  placed?: FixedSlot[];
  titles: Map<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
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
  /** Tokens the call spent (null when no call was made or no answer came). */
  usage: { inputTokens: number; outputTokens: number } | null;
  /** Why the model's answer was not used at all (the solver placed everything), when it was not. */
  failure?: string;
}

export type ModelPlacer = (args: ModelPlacementArgs) => Promise<ModelPlacementResult>;
