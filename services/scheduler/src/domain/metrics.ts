import { counterMetric } from '@routinely/platform';

const llmSpend = counterMetric(
  'routinely_llm_spend_usd_total',
  'USD recorded in the usage ledger, by provider and model',
  ['provider', 'model'],
);

const llmTokens = counterMetric('routinely_llm_tokens_total', 'Model tokens recorded, by provider and direction', [
  'provider',
  'direction',
]);

const quotaRefusals = counterMetric(
  'routinely_quota_refusals_total',
  'Requests refused by a quota: spend (hard cap) or import (bulk-import limit)',
  ['quota'],
);

/** Counts one recorded call (after its transaction committed). */
export function countUsage(
  call: { provider: string; model: string; inputTokens: number; outputTokens: number },
  usd: number,
) {
  llmSpend.inc({ provider: call.provider, model: call.model }, usd);
  llmTokens.inc({ provider: call.provider, direction: 'input' }, call.inputTokens);
  llmTokens.inc({ provider: call.provider, direction: 'output' }, call.outputTokens);
}

export function countRefusal(quota: 'spend' | 'import'): void {
  quotaRefusals.inc({ quota });
}
