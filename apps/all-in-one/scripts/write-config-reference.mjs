// Writes docs/configuration.md from the built configuration schemas (`npm run generate`).
import { writeFileSync } from 'node:fs';
import { renderConfigReference } from '../dist/config-reference.js';

const target = new URL('../../../docs/configuration.md', import.meta.url);
writeFileSync(target, renderConfigReference());
console.log(`wrote ${target.pathname}`);
