// Writes packages/api-client/src/gen/openapi.json from the built route definitions of every service, without
// starting anything (`npm run generate`; the client types are generated from it next).
import { writeFileSync } from 'node:fs';
import { renderOpenApiDocument } from '../dist/openapi-document.js';

const target = new URL('../../../packages/api-client/src/gen/openapi.json', import.meta.url);
writeFileSync(target, await renderOpenApiDocument());
console.log(`wrote ${target.pathname}`);
