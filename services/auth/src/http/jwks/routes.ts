import type { FastifyPluginAsync } from 'fastify';
import type { SigningKeyStore } from '../../domain/signing-keys.js';

/** The public keys, at the root (/.well-known/jwks.json), for any verifier of our access tokens. */
export function jwksRoutes(keys: SigningKeyStore): FastifyPluginAsync {
  return async (app) => {
    app.get(
      '/.well-known/jwks.json',
      {
        config: { auth: 'none', rateLimit: false },
        schema: {
          operationId: 'getJwks',
          tags: ['auth'],
          summary: 'JSON Web Key Set of the access-token signing keys',
        },
      },
      async (_request, reply) => {
        reply.header('cache-control', 'public, max-age=300');
        return keys.jwks();
      },
    );
  };
}
