import type { ProviderName as LlmProviderName } from '@routinely/llm';
import { z } from 'zod';

// The registry (availability, models, adapters, prices) is @routinely/llm's ProviderRegistry; the service
// adds only the validation of a provider name in its requests and rows.

/** The providers a run may name; `builtin` is the solver (always available, costs nothing). */
export const PROVIDER_NAMES = ['builtin', 'openai', 'anthropic'] as const satisfies readonly LlmProviderName[];
export type ProviderName = (typeof PROVIDER_NAMES)[number];
export const providerName = z.enum(PROVIDER_NAMES);
