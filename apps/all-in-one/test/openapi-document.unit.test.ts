import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderOpenApiDocument } from '../src/openapi-document.js';

const COMMITTED = new URL('../../../packages/api-client/src/gen/openapi.json', import.meta.url);

describe('the OpenAPI document', () => {
  it('is what packages/api-client/src/gen/openapi.json holds (run `npm run generate` after changing a route)', async () => {
    expect(await renderOpenApiDocument()).toBe(readFileSync(COMMITTED, 'utf8'));
  });
});
