// Writes envoy/envoy.yaml (plain names, for a compose file or a hand-run Envoy) and the Helm chart's
// files/envoy.yaml (placeholders the chart's template fills with the release's names and the trusted hops)
// from the route table. A test fails when either drifts.
import { writeFileSync } from 'node:fs';
import { renderEnvoyConfig } from '@routinely/platform';
import { stringify } from 'yaml';
import { CHART_ENVOY_OPTIONS } from './envoy-placeholders.mjs';

const header = '# Generated from packages/platform/src/route-table.ts by `pnpm --filter @routinely/deploy generate`.\n';
const write = (path, options) =>
  writeFileSync(new URL(path, import.meta.url), header + stringify(renderEnvoyConfig(options), { lineWidth: 0 }));
write('../envoy/envoy.yaml', {});
write('../helm/routinely/files/envoy.yaml', CHART_ENVOY_OPTIONS);
