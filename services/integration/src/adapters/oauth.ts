import { createHash } from 'node:crypto';
import { randomToken } from '@routinely/platform';
import { z } from 'zod';
import type { TokenSet } from './adapter.js';
import { type HttpOptions, providerFetch, readAnswer } from './http.js';

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomToken(48);
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A token endpoint's answer (RFC 6749 section 5.1), as much of it as we use. */
const tokenAnswer = z.object({
  access_token: z.string(),
  refresh_token: z.string().nullish(),
  expires_in: z.number().nullish(),
  /** The scopes granted (RFC 6749 5.1: space separated; may be absent when they are the ones asked for). */
  scope: z.string().nullish(),
});

/** A token endpoint call (authorization_code or refresh_token grant) with client credentials in the body. */
export async function tokenRequest(
  http: HttpOptions,
  tokenUrl: string,
  client: { id: string; secret: string | undefined },
  params: Record<string, string>,
): Promise<TokenSet> {
  const body = new URLSearchParams({ ...params, client_id: client.id });
  if (client.secret) body.set('client_secret', client.secret);
  const response = await providerFetch(http, 'token endpoint', tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  const answer = await readAnswer(response, 'token endpoint', tokenAnswer);
  return {
    accessToken: answer.access_token,
    ...(answer.refresh_token ? { refreshToken: answer.refresh_token } : {}),
    ...(answer.scope ? { scopes: answer.scope.split(' ').filter(Boolean) } : {}),
    expiresAt: new Date(http.clock.now().getTime() + (answer.expires_in ?? 3600) * 1000),
  };
}
