// Writes the generated Envoy files (envoy-files.mjs) under deploy/ (`npm run generate`).
import { writeFileSync } from 'node:fs';
import { renderEnvoyFiles } from './envoy-files.mjs';

for (const [path, text] of Object.entries(renderEnvoyFiles())) {
  const target = new URL(`../${path}`, import.meta.url);
  writeFileSync(target, text);
  console.log(`wrote ${target.pathname}`);
}
