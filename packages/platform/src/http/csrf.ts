import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/**
 * Body types a cookie-authenticated write may carry. JSON and CSV cannot be sent cross-site without a CORS
 * preflight (which this API never grants); form, multipart and text/plain bodies can, so they are refused.
 */
const COOKIE_BODY_TYPES = [/^application\/json\b/, /^application\/[a-z0-9.+-]+\+json\b/, /^text\/csv\b/];

/** The origin (scheme://host[:port]) of a URL, lowercase; undefined for anything that is not one. */
export function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.origin === 'null' ? undefined : parsed.origin.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * Cross-site request forgery guard for requests authenticated by the session cookie (a bearer header is never
 * sent by a browser on its own, so those requests are not checked): an unsafe method needs an `Origin` of
 * the allowed list, or `Sec-Fetch-Site: same-origin` when the browser sent no Origin, and a JSON (or CSV) body.
 */
export class CookieCsrfGuard {
  private readonly allowed: Set<string>;
  constructor(allowedOrigins: readonly string[]) {
    this.allowed = new Set(allowedOrigins.map((o) => originOf(o)).filter((o): o is string => !!o));
  }

  check(request: FastifyRequest): void {
    if (SAFE_METHODS.has(request.method)) return;
    const origin = request.headers.origin;
    if (typeof origin === 'string') {
      const normalized = originOf(origin);
      if (!normalized || !this.allowed.has(normalized)) {
        throw new AppError('forbidden', 'Cookie-authenticated request from an origin that is not allowed');
      }
    } else if (request.headers['sec-fetch-site'] !== 'same-origin') {
      throw new AppError(
        'forbidden',
        'Cookie-authenticated request without Origin or Sec-Fetch-Site: same-origin; send a bearer token instead',
      );
    }
    const hasBody = Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'];
    const type = (request.headers['content-type'] ?? '').toLowerCase();
    if (hasBody && !COOKIE_BODY_TYPES.some((allowed) => allowed.test(type))) {
      throw new AppError('forbidden', 'Cookie-authenticated requests must send a JSON body');
    }
  }
}

/** Allowed origins from configuration: PUBLIC_BASE_URL's origin plus the ALLOWED_ORIGINS comma list. */
export function allowedOriginsFrom(config: {
  PUBLIC_BASE_URL?: string | undefined;
  ALLOWED_ORIGINS?: string;
}): string[] {
  const list = (config.ALLOWED_ORIGINS ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  return [...(config.PUBLIC_BASE_URL ? [config.PUBLIC_BASE_URL] : []), ...list];
}
