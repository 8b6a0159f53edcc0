import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Zod schemas declared in a route file instead of its resource's schemas.ts (docs/service-guide.md), found by
 * text: a call of a zod builder (`z.object(`, `z.array(`, `z.null()`, `z.coerce.number(`, ...) or of a schema
 * method that makes a new schema from an imported one (`.extend(`, `.optional()`, `.describe(`, ...). A route
 * only passes imported schemas to its `schema: { ... }` option. `z.toJSONSchema` converts a schema into data
 * and declares none, so it is allowed.
 */
const ZOD_BUILDER = /\bz\s*\.\s*(?!toJSONSchema\b)[a-z]\w*(?:\s*\.\s*[a-z]\w*)*\s*(?:<[^<>()]*>)?\s*\(/g;
const SCHEMA_METHOD =
  /\.\s*(?:extend|safeExtend|merge|pick|omit|partial|required|optional|nullable|nullish|describe|meta|default|strict|array|refine|superRefine|transform|pipe)\s*\(/g;

function routeFiles(root: string): string[] {
  const services = join(root, 'services');
  return readdirSync(services).flatMap((service) => {
    const http = join(services, service, 'src', 'http');
    if (!existsSync(http)) return [];
    return readdirSync(http)
      .map((resource) => join(http, resource, 'routes.ts'))
      .filter((file) => existsSync(file));
  });
}

/** `services/<svc>/src/http/<resource>/routes.ts:<line>: <code>` for every schema a route file declares, sorted. */
export function routeSchemaDeclarations(root: string): string[] {
  const findings: string[] = [];
  for (const file of routeFiles(root)) {
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    const hitLines = new Set<number>();
    for (const pattern of [ZOD_BUILDER, SCHEMA_METHOD]) {
      for (const match of text.matchAll(pattern)) {
        hitLines.add(text.slice(0, match.index).split('\n').length);
      }
    }
    for (const line of hitLines) findings.push(`${relative(root, file)}:${line}: ${lines[line - 1]?.trim() ?? ''}`);
  }
  return findings.sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
}
