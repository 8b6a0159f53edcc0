import { exampleOf } from './openapi-examples.js';
import { DOCUMENT_HEADERS, DOCUMENT_RESPONSES, type RouteFacts, withProblemResponses } from './problem-responses.js';

/** Extension key the route transform leaves on each operation for the document pass; removed by it. */
export const FACTS_KEY = 'x-routinely-route';
/** Marks an operation whose body schema accepts no body at all; the document pass turns it into `required: false`. */
export const OPTIONAL_BODY_KEY = 'x-routinely-optional-body';

type Json = Record<string, unknown>;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const SCHEMA_REF = '#/components/schemas/';

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;

/** Every operation object of the document's paths. */
function operationsOf(document: Json): { path: string; method: string; operation: Json }[] {
  const out: { path: string; method: string; operation: Json }[] = [];
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (isObject(operation)) out.push({ path, method, operation });
    }
  }
  return out;
}

/** Calls `visit` on every object inside `value` (depth first, parents before children). */
function walk(value: unknown, visit: (node: Json) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, visit);
  } else if (isObject(value)) {
    visit(value);
    for (const child of Object.values(value)) walk(child, visit);
  }
}

/**
 * zod writes `z.number().int()` as the safe-integer range; a bound of +-(2^53 - 1) says nothing to a reader and
 * breaks some generators, so those two are dropped (routes state real bounds where there are any).
 */
function dropSafeIntegerNoise(document: Json): void {
  walk(document, (node) => {
    if (node.minimum === Number.MIN_SAFE_INTEGER) delete node.minimum;
    if (node.maximum === Number.MAX_SAFE_INTEGER) delete node.maximum;
  });
}

/** Schema names referenced from `value` (directly, not transitively). */
function schemaRefs(value: unknown): Set<string> {
  const names = new Set<string>();
  walk(value, (node) => {
    if (typeof node.$ref === 'string' && node.$ref.startsWith(SCHEMA_REF))
      names.add(node.$ref.slice(SCHEMA_REF.length));
  });
  return names;
}

/**
 * fastify-type-provider-zod writes each registered schema twice (`X` for answers, `XInput` for requests);
 * where both come out the same the requests use `X`, and components nothing refers to are dropped.
 */
function tidyComponents(document: Json): void {
  const components = (document.components ?? {}) as Json;
  const schemas = (components.schemas ?? {}) as Record<string, Json>;
  const renames = new Map<string, string>();
  for (const name of Object.keys(schemas)) {
    const base = name.endsWith('Input') ? name.slice(0, -'Input'.length) : undefined;
    if (base && schemas[base] && JSON.stringify(schemas[name]) === JSON.stringify(schemas[base])) {
      renames.set(`${SCHEMA_REF}${name}`, `${SCHEMA_REF}${base}`);
    }
  }
  walk(document, (node) => {
    const target = typeof node.$ref === 'string' ? renames.get(node.$ref) : undefined;
    if (target) node.$ref = target;
  });
  const { schemas: _, ...rest } = components;
  const used = schemaRefs({ ...document, components: rest });
  const queue = [...used];
  while (queue.length > 0) {
    const name = queue.pop() as string;
    for (const next of schemaRefs(schemas[name])) {
      if (!used.has(next)) {
        used.add(next);
        queue.push(next);
      }
    }
  }
  // A request-only schema goes by its plain name (TaskCreate, not TaskCreateInput).
  const kept = [...used].filter((name) => schemas[name]);
  for (const name of kept) {
    const base = name.endsWith('Input') ? name.slice(0, -'Input'.length) : undefined;
    if (base && !used.has(base)) renames.set(`${SCHEMA_REF}${name}`, `${SCHEMA_REF}${base}`);
  }
  walk(document, (node) => {
    const target = typeof node.$ref === 'string' ? renames.get(node.$ref) : undefined;
    if (target) node.$ref = target;
  });
  const named = kept.map((name) => {
    // zod writes each as a standalone JSON Schema; inside the document they are plain component schemas.
    const { $schema: _s, $id: _i, ...schema } = schemas[name] as Json;
    const target = renames.get(`${SCHEMA_REF}${name}`);
    return [target ? target.slice(SCHEMA_REF.length) : name, schema] as const;
  });
  components.schemas = Object.fromEntries(named.sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * Request bodies are strict (validation answers 422 naming an unknown field), so their objects say
 * `additionalProperties: false` unless the schema itself allows extra fields (register's passthrough).
 */
function markStrictBodies(document: Json): void {
  requestSchemas(document, (node) => {
    if (node.type === 'object' && node.properties && node.additionalProperties === undefined) {
      node.additionalProperties = false;
    }
  });
}

/** Every schema a request body reaches (its own and the components it refers to), each once. */
function requestSchemas(document: Json, visit: (node: Json) => void): void {
  const schemas = ((document.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  const seen = new Set<Json>();
  const mark = (value: unknown) =>
    walk(value, (node) => {
      if (seen.has(node)) return;
      seen.add(node);
      visit(node);
      if (typeof node.$ref === 'string' && node.$ref.startsWith(SCHEMA_REF)) {
        mark(schemas[node.$ref.slice(SCHEMA_REF.length)]);
      }
    });
  for (const { operation } of operationsOf(document)) {
    const content = ((operation.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>;
    for (const media of Object.values(content)) mark(media.schema);
  }
}

/**
 * A request field with a default is optional (the server fills it in), but generators with their default
 * options (openapi-typescript's `defaultNonNullable`) type a property carrying `default` as required, so
 * `createTask({ title })` would not compile. Request schemas state the default in the description instead.
 */
function describeRequestDefaults(document: Json): void {
  requestSchemas(document, (node) => {
    if (!isObject(node.properties)) return;
    for (const property of Object.values(node.properties)) {
      if (!isObject(property) || property.default === undefined) continue;
      const stated = typeof property.description === 'string' ? `${property.description.replace(/\.?$/, '.')} ` : '';
      property.description = `${stated}Default: ${JSON.stringify(property.default)}.`;
      delete property.default;
    }
  });
}

/**
 * An example for every request and response body that has none: the schema's own `examples` where it states
 * them (components registered with examples), otherwise a sample built from the schema (formats, bounds,
 * enums). Redocly's no-invalid-media-type-examples checks each one against its schema.
 */
function addExamples(document: Json): void {
  const fill = (content: unknown) => {
    if (!isObject(content)) return;
    for (const [type, media] of Object.entries(content)) {
      if (!isObject(media) || !isObject(media.schema) || media.example !== undefined || media.examples) continue;
      if (!type.includes('json') && !type.startsWith('text/') && type !== 'application/x-www-form-urlencoded') continue;
      media.example = exampleOf(media.schema, document);
    }
  };
  const responses = (document.components as Json | undefined)?.responses as Record<string, Json> | undefined;
  for (const response of Object.values(responses ?? {})) fill(response.content);
  for (const { operation } of operationsOf(document)) {
    fill((operation.requestBody as Json | undefined)?.content);
    for (const response of Object.values((operation.responses ?? {}) as Record<string, Json>)) fill(response.content);
  }
  for (const item of Object.values((document.webhooks ?? {}) as Record<string, Json>)) {
    fill(((item.post as Json | undefined)?.requestBody as Json | undefined)?.content);
  }
}

const SUCCESS_DESCRIPTIONS: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '202': 'Accepted',
  '204': 'No content',
  '302': 'Redirect (see Location)',
};

/** Per operation: the error answers and headers it can give, from the facts the route transform left. */
function completeOperations(document: Json): void {
  for (const { operation } of operationsOf(document)) {
    const facts = operation[FACTS_KEY] as RouteFacts | undefined;
    delete operation[FACTS_KEY];
    if (!facts) continue;
    const responses = (operation.responses ?? {}) as Record<string, Json>;
    for (const [code, response] of Object.entries(responses)) {
      if (response.description === 'Default Response' && SUCCESS_DESCRIPTIONS[code]) {
        response.description = SUCCESS_DESCRIPTIONS[code];
      }
    }
    operation.responses = withProblemResponses(responses, facts);
  }
}

/** Top-level tags (each described) for every tag an operation uses, in order of first use. */
function describeTags(document: Json, descriptions: Record<string, string>): void {
  const names: string[] = [];
  for (const { operation } of operationsOf(document)) {
    for (const tag of (operation.tags ?? []) as string[]) if (!names.includes(tag)) names.push(tag);
  }
  document.tags = names.map((name) => ({
    name,
    description: descriptions[name] ?? `Operations on ${name.replaceAll('-', ' ')}`,
  }));
}

export interface DocumentExtras {
  /** Outgoing requests this API makes (OpenAPI 3.1 `webhooks`), by event name. */
  webhooks: Record<string, Json>;
  tagDescriptions: Record<string, string>;
}

/** The pass over the whole generated document, after every route is in it (see openapi.ts). */
export function finishDocument(document: Json, extras: DocumentExtras): Json {
  const components = (document.components ?? {}) as Json;
  document.components = {
    ...components,
    headers: DOCUMENT_HEADERS,
    responses: DOCUMENT_RESPONSES,
  };
  if (Object.keys(extras.webhooks).length > 0) document.webhooks = extras.webhooks;
  completeOperations(document);
  describeTags(document, extras.tagDescriptions);
  dropSafeIntegerNoise(document);
  tidyComponents(document);
  markStrictBodies(document);
  markOptionalBodies(document);
  addExamples(document);
  describeRequestDefaults(document);
  return document;
}

/** @fastify/swagger marks every request body required; a route whose body schema accepts none says otherwise. */
function markOptionalBodies(document: Json): void {
  for (const { operation } of operationsOf(document)) {
    const optional = operation[OPTIONAL_BODY_KEY] === true;
    delete operation[OPTIONAL_BODY_KEY];
    if (optional && isObject(operation.requestBody)) operation.requestBody.required = false;
  }
}
