import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** The committed document the client is generated from and the services serve (packages/api-client). */
const DOCUMENT_URL = new URL('../../packages/api-client/src/gen/openapi.json', import.meta.url);
const DOCUMENT_KEY = 'openapi.json';

type Json = Record<string, unknown>;
interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  responses: Record<string, Json>;
}

interface Checker {
  document: Json;
  ajv: Ajv2020;
  operations: Operation[];
}

let checker: Checker | undefined;

/** JSON Pointer escaping of one path segment. */
const pointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

function load(): Checker {
  const document = JSON.parse(readFileSync(DOCUMENT_URL, 'utf8')) as Json;
  // OpenAPI 3.1 schemas are JSON Schema 2020-12; the document's own keywords (example, ...) are annotations.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  ajv.addSchema(document, DOCUMENT_KEY);
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
    for (const [method, operation] of Object.entries(item)) {
      operations.push({
        method: method.toUpperCase(),
        template,
        pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
        responses: operation.responses as Record<string, Json>,
      });
    }
  }
  // A literal segment wins over a parameter (`/webhooks/event-types` is not `/webhooks/{endpoint_id}`).
  const parameters = (op: Operation) => op.template.split('{').length;
  operations.sort((a, b) => parameters(a) - parameters(b));
  return { document, ajv, operations };
}

/** The object a `$ref` inside the document names (`#/components/...`). */
function resolved(document: Json, value: Json): Json {
  if (typeof value.$ref !== 'string') return value;
  const target = value.$ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>(
      (node, key) => (node as Json | undefined)?.[key.replaceAll('~1', '/').replaceAll('~0', '~')],
      document,
    );
  return resolved(document, target as Json);
}

/**
 * What is wrong with one answer against the document: its status is not listed for the operation, its content
 * type is not one the status documents, its body breaks the schema (Ajv, JSON Schema 2020-12, formats
 * checked), or a header the document marks required is missing. Answers to requests the document does not
 * describe are not judged here (fetchUndocumented is for those).
 */
export async function conformanceProblems(method: string, url: string, response: Response): Promise<string[]> {
  checker ??= load();
  const { document, ajv, operations } = checker;
  const pathname = new URL(url).pathname.replace(/^\/v1\//, '/api/v1/');
  const operation = operations.find((op) => op.method === method.toUpperCase() && op.pattern.test(pathname));
  if (!operation) return [];
  const where = `${method.toUpperCase()} ${operation.template} answered ${response.status}`;
  const status = String(response.status);
  const documented = operation.responses[status] ?? operation.responses.default;
  if (!documented) return [`${where}: status not documented (${Object.keys(operation.responses).join(', ')})`];
  const answer = resolved(document, documented);
  const problems: string[] = [];
  for (const [name, raw] of Object.entries((answer.headers ?? {}) as Record<string, Json>)) {
    if (resolved(document, raw).required === true && !response.headers.has(name)) {
      problems.push(`${where}: required header ${name} missing`);
    }
  }
  const text = await response.clone().text();
  const content = (answer.content ?? {}) as Record<string, Json>;
  if (text === '') {
    if (Object.keys(content).length > 0 && response.status !== 204 && response.status !== 302) {
      problems.push(`${where}: empty body, documented as ${Object.keys(content).join(' or ')}`);
    }
    return problems;
  }
  const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
  if (!(type in content)) {
    return [
      ...problems,
      `${where}: content type ${type || '(none)'} not documented (${Object.keys(content).join(', ')})`,
    ];
  }
  if (!type.includes('json')) return problems;
  const schemaPointer = ['paths', operation.template, operation.method.toLowerCase(), 'responses', status]
    .map(pointer)
    .join('/');
  const ref =
    typeof documented.$ref === 'string'
      ? `${DOCUMENT_KEY}${documented.$ref}/content/${pointer(type)}/schema`
      : `${DOCUMENT_KEY}#/${schemaPointer}/content/${pointer(type)}/schema`;
  const validate = ajv.getSchema(ref);
  if (!validate) return [...problems, `${where}: no schema at ${ref}`];
  if (!validate(JSON.parse(text))) {
    for (const error of (validate.errors ?? []).slice(0, 3)) {
      const detail =
        error.params && 'additionalProperty' in error.params ? ` (${error.params.additionalProperty})` : '';
      problems.push(`${where}: body breaks the schema at ${error.instancePath || '/'}: ${error.message}${detail}`);
    }
  }
  return problems;
}

/**
 * A fetch that checks every answer of a documented operation against the document and throws on a mismatch,
 * so an end-to-end test that receives an answer the document does not describe fails where it made the call.
 * It sits in the client layer (apiFor), whatever starts the system under test.
 */
export function conformingFetch(inner: (request: Request) => Promise<Response> = (r) => fetch(r)) {
  return async (request: Request): Promise<Response> => {
    const method = request.method;
    const response = await inner(request);
    const problems = await conformanceProblems(method, request.url, response);
    if (problems.length > 0)
      throw new Error(`the answer does not conform to the OpenAPI document:\n${problems.join('\n')}`);
    return response;
  };
}
