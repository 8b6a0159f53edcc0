import { counterMetric } from '@routinely/platform';

const syncs = counterMetric(
  'routinely_integration_syncs_total',
  'Calendar syncs by provider and outcome (ok, busy, reauth_required, failed)',
  ['provider', 'outcome'],
);

const pushes = counterMetric(
  'routinely_integration_push_notifications_total',
  'Push notifications received by provider and result (accepted, rejected)',
  ['provider', 'result'],
);

export function countSync(provider: string, outcome: 'ok' | 'busy' | 'reauth_required' | 'failed'): void {
  syncs.inc({ provider, outcome });
}

export function countPush(provider: string, result: 'accepted' | 'rejected'): void {
  pushes.inc({ provider, result });
}
