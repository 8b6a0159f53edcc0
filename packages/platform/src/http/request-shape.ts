import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

const JSON_MEDIA_TYPE = 'application/json';

interface RouteSchema {
  hide?: boolean;
  consumes?: string[];
  querystring?: unknown;
}

const schemaOf = (request: FastifyRequest): RouteSchema => (request.routeOptions.schema ?? {}) as RouteSchema;

/** An operation of the API (either mount) that the document describes; probes and providers' callbacks are not. */
function isDocumented(request: FastifyRequest): boolean {
  const url = request.routeOptions.url;
  return !schemaOf(request).hide && url !== undefined && (url.startsWith('/api/v1/') || url.startsWith('/v1/'));
}

/** The media type of a content-type header, lowercased, without its parameters (`; charset=utf-8`). */
const mediaTypeOf = (header: string | undefined): string => header?.split(';')[0]?.trim().toLowerCase() ?? '';

function carriesBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * How bodies are read. An empty body sent as `application/json` is no body (axios and other clients send the
 * header on a bodyless POST), so a bodyless action works and a route that needs a body says which field is
 * missing. A body must come as the route's media type: JSON unless the route's schema lists others in
 * `consumes` (the OAuth2 form login, the back-channel logout, the CSV import). `curl -d '{...}'` sends JSON as
 * a form, which would otherwise read as one unknown parameter named by the whole JSON text: 415 naming
 * `application/json` says what to fix. Routes left out of the document (providers' pushes) are not checked.
 */
export function registerBodyParsing(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(JSON_MEDIA_TYPE);
  app.addContentTypeParser(JSON_MEDIA_TYPE, { parseAs: 'string' }, (request, body, done) => {
    const text = String(body);
    if (text === '') {
      done(null, undefined);
      return;
    }
    // biome-ignore lint/nursery/noFloatingPromises: fastify's default JSON parser is the callback form (it answers through done, returns nothing)
    parseJson(request, text, done);
  });
  app.addHook('preParsing', async (request) => {
    // A route that answers bad input itself (the back-channel logout's 400 invalid_request) reads any body.
    if (!isDocumented(request) || !carriesBody(request) || request.routeOptions.attachValidation) return;
    const accepted = schemaOf(request).consumes ?? [JSON_MEDIA_TYPE];
    const type = mediaTypeOf(request.headers['content-type']);
    if (!accepted.includes(type)) {
      throw new AppError(
        'unsupported_media_type',
        `${type ? `Content-Type ${type}` : 'A body without a Content-Type'} is not accepted here; send ${accepted.join(' or ')}`,
      );
    }
  });
}

/**
 * A documented route that declares no query parameters refuses any it is sent, as routes with a query schema
 * refuse unknown ones (validation.ts): a misspelt filter is an error, never a silently wider answer.
 */
export function refuseUndeclaredQuery(request: FastifyRequest): void {
  if (!isDocumented(request) || schemaOf(request).querystring !== undefined) return;
  const names = Object.keys((request.query ?? {}) as Record<string, unknown>);
  if (names.length === 0) return;
  throw new AppError('validation_failed', 'Request validation failed', {
    errors: names.map((name) => ({
      loc: ['query', name],
      msg: `Unknown parameter: ${name}; this operation takes no query parameters`,
      type: 'unrecognized_keys',
    })),
  });
}
