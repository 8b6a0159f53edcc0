import { describe, expect, it } from 'vitest';
import { routeSchemaDeclarations } from '../src/route-schemas.js';

const ROOT = new URL('../../../', import.meta.url).pathname;

describe('schemas declared in route files', () => {
  it('are none: every route imports its schemas from schemas.ts', () => {
    expect(routeSchemaDeclarations(ROOT), 'move them into the schemas.ts beside the routes').toEqual([]);
  });

  it('finds builders, a coerced query, a composition and a described answer, but not a conversion', () => {
    const fixture = new URL('./fixtures/route-schemas/', import.meta.url).pathname;
    expect(routeSchemaDeclarations(fixture)).toEqual([
      'services/demo/src/http/widgets/routes.ts:14: const widgetParams = z.object({ widget_id: z.uuid() });',
      'services/demo/src/http/widgets/routes.ts:15: const listQuery = z',
      'services/demo/src/http/widgets/routes.ts:16: .object({ limit: z.coerce.number().int().optional(), offset: z.coerce.number().int().optional() })',
      "services/demo/src/http/widgets/routes.ts:17: .describe('one page of widgets, from offset, at most limit of them');",
      'services/demo/src/http/widgets/routes.ts:18: const widgetPatch = widgetRead.extend({ name: z.string() });',
      "services/demo/src/http/widgets/routes.ts:25: response: { 200: z.array(widgetRead), 204: z.null().describe('Deleted') },",
    ]);
  });
});
