import { randomFillSync } from 'node:crypto';
import { STATUS_CODES, validateHeaderName, validateHeaderValue } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply } from 'fastify';
import { v7 as uuidv7 } from 'uuid';
import { AppError, problemOf } from '../errors.js';

/** Longer URLs are refused (414) before routing; Node's own limit (16 KiB of headers) comes later as 431. */
export const MAX_URL_LENGTH = 8192;

/** A client-supplied X-Request-ID is kept only when it is a short token that is safe in logs and headers. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Random bytes for request ids, drawn 4 KiB at a time: the uuid package asks the OS generator for 16 bytes per
 * id, which was about 4 % of a single-row read's CPU. Ids stay UUIDv7 (time first, 74 random bits);
 * ids made in one millisecond are not ordered among themselves, which nothing asks of a request id.
 */
const idRandomness = { pool: new Uint8Array(4096), used: 4096 };

function pooledRandom16(): Uint8Array {
  if (idRandomness.used + 16 > idRandomness.pool.length) {
    randomFillSync(idRandomness.pool);
    idRandomness.used = 0;
  }
  idRandomness.used += 16;
  return idRandomness.pool.subarray(idRandomness.used - 16, idRandomness.used);
}

export function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && SAFE_REQUEST_ID.test(header) ? header : uuidv7({ rng: pooledRandom16 });
}

/**
 * Errors Node's parser raises before fastify sees a request (oversized headers, malformed requests) are
 * written straight to the socket: as problem+json here, like every other error of the API.
 */
export function problemClientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const appError =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new AppError('headers_too_large', 'Request headers exceed the allowed size')
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? undefined
        : new AppError('validation_failed', 'Malformed HTTP request', {
            errors: [{ loc: ['request'], msg: 'malformed HTTP request', type: 'http_invalid' }],
          });
  if (socket.writable) {
    if (!appError) {
      socket.write('HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    } else {
      const problem = problemOf(appError, uuidv7());
      const body = JSON.stringify(problem);
      socket.write(
        `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\nContent-Type: application/problem+json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
  }
  socket.destroy(error);
}

/** Fastify's own router errors (its `frameworkErrors` hook), as the problem each one is. */
export function frameworkProblem(error: Error & { code?: string }): AppError {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return new AppError('uri_too_long', 'A path parameter is longer than allowed');
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    return new AppError('validation_failed', 'The path is not a valid URL', {
      errors: [{ loc: ['path'], msg: 'malformed percent-encoding', type: 'url_invalid' }],
    });
  }
  return new AppError('internal_error', 'An unexpected error occurred');
}

/**
 * A 4xx fastify raised itself (a malformed Content-Length, a body it could not read) that no other rule
 * names: a problem saying the request was malformed, never fastify's own `{ error, code, message }`.
 */
export function clientProblem(error: Error & { statusCode?: number }): AppError | undefined {
  const status = error.statusCode ?? 500;
  if (status < 400 || status >= 500) return undefined;
  return new AppError('validation_failed', 'Malformed request', {
    errors: [{ loc: ['request'], msg: error.message, type: 'http_invalid' }],
  });
}

/**
 * Drops the headers of a failed reply that Node would refuse to write (a Location built from a value with a
 * non-ASCII or control character raises ERR_INVALID_CHAR at write time): the problem answering the failure
 * must not fail the same way, falling back to fastify's own error body.
 */
export function dropUnwritableHeaders(reply: FastifyReply): void {
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    try {
      validateHeaderName(name);
      for (const item of [value].flat()) if (item !== undefined) validateHeaderValue(name, String(item));
    } catch {
      reply.removeHeader(name);
    }
  }
}
