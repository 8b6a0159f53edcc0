import type { placeWithModel } from '@routinely/llm';

export type { ModelPlacement, ModelPlacementArgs, ModelPlacementResult } from '@routinely/llm';

/**
 * The seam between runs and the language-model placement of @routinely/llm (`placeWithModel`, ADR 054): ONE
 * model call for a batch of tasks, every pick re-checked against the hard rules, the solver taking over per task
 * on anything wrong. Runs depend on this type only; the composition root passes the function.
 */
export type ModelPlacer = typeof placeWithModel;
