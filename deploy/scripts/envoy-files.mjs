// The generated Envoy files as text, by path under deploy/: envoy/envoy.yaml (plain names, for a compose file or
// a hand-run Envoy) and the Helm chart's files/envoy.yaml (placeholders the chart's template fills with the
// release's names and the trusted hops), both from the route table. write-envoy.mjs writes them; a test fails
// when either committed file differs by a byte.
import { renderEnvoyConfig } from '@routinely/platform';
import { stringify } from 'yaml';
import { CHART_ENVOY_OPTIONS } from './envoy-placeholders.mjs';

const HEADER = '# Generated from packages/platform/src/route-table.ts by `npm run generate`.\n';
const render = (options) => HEADER + stringify(renderEnvoyConfig(options), { lineWidth: 0 });

export function renderEnvoyFiles() {
  return {
    'envoy/envoy.yaml': render({}),
    'helm/routinely/files/envoy.yaml': render(CHART_ENVOY_OPTIONS),
  };
}
