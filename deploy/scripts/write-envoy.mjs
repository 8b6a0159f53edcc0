// Writes envoy/envoy.yaml (and the Helm chart's copy) from the route table. A test fails when they drift.
import { writeFileSync } from 'node:fs';
import { renderEnvoyConfig } from '@routinely/platform';
import { stringify } from 'yaml';

const header = '# Generated from packages/platform/src/route-table.ts by `pnpm --filter @routinely/deploy generate`.\n';
const text = header + stringify(renderEnvoyConfig(), { lineWidth: 0 });
writeFileSync(new URL('../envoy/envoy.yaml', import.meta.url), text);
writeFileSync(new URL('../helm/routinely/files/envoy.yaml', import.meta.url), text);
