import type { FastifyInstance } from 'fastify';

/** The docs page loads only its own scripts and styles (swagger-ui sets inline styles), and is never framed. */
export const DOCS_CSP =
  "default-src 'self'; base-uri 'self'; object-src 'none'; frame-ancestors 'none'; form-action 'self'; " +
  "img-src 'self' data:; script-src 'self'; script-src-attr 'none'; style-src 'self' 'unsafe-inline'";
/** API answers are data, never documents: nothing in them may load or be framed. */
const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/**
 * Headers every answer carries. Answers are per caller (tokens, profiles, tasks), so nothing is cached unless
 * a route says otherwise (the JWKS does); `no-store` covers every token response at once.
 */
export function registerSecurityHeaders(app: FastifyInstance, docsPath: string): void {
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'no-referrer');
    reply.header('X-Frame-Options', 'DENY');
    const isDocs = request.url.startsWith(docsPath);
    if (!reply.hasHeader('content-security-policy')) {
      reply.header('Content-Security-Policy', isDocs ? DOCS_CSP : API_CSP);
    }
    if (!isDocs && !reply.hasHeader('cache-control')) reply.header('Cache-Control', 'no-store');
    return payload;
  });
}
