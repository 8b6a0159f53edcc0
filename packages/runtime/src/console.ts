import { stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import compress from '@fastify/compress';
import fastifyStatic from '@fastify/static';
import { optionalEnv } from '@routinely/platform';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';

/**
 * The web console's built files (apps/console/dist) served at `/` beside the API (contract, "Web console";
 * docs/adr/101): a path that is a file answers the file, any other path but the API's answers index.html
 * (client-side routes), an unknown `/api/...` or `/v1/...` path stays the API's problem+json 404.
 */

/** Scripts, styles, fonts and images of this origin only; nothing inline, nothing from elsewhere, never framed. */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const CONSOLE_HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
};
/** Vite writes every file whose name carries its content hash under assets/: they never change. */
const HASHED_ASSETS = 'assets/';
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The API's own paths: whatever is unknown there is the API's 404, never the console. */
const API_PATH = /^\/(?:api|v1)(?:\/|$)/;

/** Where the all-in-one and the console process look for the built console (apps/console/dist of this tree). */
export const DEFAULT_CONSOLE_DIR = fileURLToPath(new URL('../../../apps/console/dist/', import.meta.url));

export const consoleConfigSchema = z.object({
  CONSOLE_DIR: optionalEnv(z.string().min(1)).describe(
    "the built web console served at `/` (default: this installation's `apps/console/dist`); without an `index.html` there, `/` says the console is not built and the API works as ever",
  ),
});

export const NOT_BUILT_TEXT = [
  'The Routinely web console has not been built here.',
  '',
  'Build it with `npm run build` (or point CONSOLE_DIR at a built console) and reload this page.',
  'The API works meanwhile: its reference is at /api/v1/docs.',
  '',
].join('\n');

/** The path of a request inside the console folder, or undefined for one that cannot be a file there. */
function relativeFile(root: string, url: string): string | undefined {
  let path: string;
  try {
    path = decodeURIComponent(url.split('?')[0] ?? '/');
  } catch {
    return undefined;
  }
  const absolute = resolve(root, `.${path}`);
  return absolute.startsWith(root + sep) ? absolute.slice(root.length + 1) : undefined;
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

/**
 * Serves the console from `dir` on this app. Registered after every API route: the router prefers them, so only
 * what no route claims reaches the console. Each answer carries the console's CSP and headers; files are sent
 * precompressed when a `.br` or `.gz` sits beside them, compressed on the fly otherwise.
 */
export async function registerConsole(app: FastifyInstance, options: { dir: string }): Promise<void> {
  const root = resolve(options.dir);
  await app.register(async (scope) => {
    await scope.register(compress, { encodings: ['br', 'gzip'], threshold: 1024 });
    await scope.register(fastifyStatic, { root, serve: false, preCompressed: true, cacheControl: false });
    scope.addHook('onSend', async (_request, reply, payload) => {
      reply.headers(CONSOLE_HEADERS);
      return payload;
    });
    const answer = async (url: string, reply: FastifyReply) => {
      if (!(await isFile(resolve(root, 'index.html')))) {
        return reply
          .status(503)
          .header('cache-control', 'no-store')
          .type('text/plain; charset=utf-8')
          .send(NOT_BUILT_TEXT);
      }
      const file = relativeFile(root, url);
      if (file && (await isFile(resolve(root, file)))) {
        return reply.header('cache-control', file.startsWith(HASHED_ASSETS) ? IMMUTABLE : 'no-cache').sendFile(file);
      }
      // A missing hashed file is a stale page asking for the previous build's asset: an HTML page there would
      // only be refused as a script or a style.
      if (file?.startsWith(HASHED_ASSETS)) {
        return reply
          .status(404)
          .header('cache-control', 'no-store')
          .type('text/plain; charset=utf-8')
          .send('Not found\n');
      }
      return reply.header('cache-control', 'no-cache').sendFile('index.html');
    };
    scope.route({
      method: ['GET', 'HEAD'],
      url: '/*',
      // Public, outside the API's per-IP limit (a page load is a dozen files), and no reason to allow other
      // methods on every path.
      config: { auth: 'none', rateLimit: false, fallback: true },
      handler: (request, reply) => (API_PATH.test(request.url) ? reply.callNotFound() : answer(request.url, reply)),
    });
  });
}
