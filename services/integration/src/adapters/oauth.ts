import { createHash } from 'node:crypto';
import { randomToken } from '@routinely/platform';
import type { TokenSet } from './adapter.js';
import { type HttpOptions, providerJson } from './http.js';

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomToken(48);
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

interface TokenAnswer {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
}

/** A token endpoint call (authorization_code or refresh_token grant) with client credentials in the body. */
export async function tokenRequest(
  http: HttpOptions,
  tokenUrl: string,
  client: { id: string; secret: string | undefined },
  params: Record<string, string>,
): Promise<TokenSet> {
  const body = new URLSearchParams({ ...params, client_id: client.id });
  if (client.secret) body.set('client_secret', client.secret);
  const answer = await providerJson<TokenAnswer>(http, 'token endpoint', tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  if (typeof answer.access_token !== 'string') throw new Error('token endpoint answered without access_token');
  return {
    accessToken: answer.access_token,
    ...(answer.refresh_token ? { refreshToken: answer.refresh_token } : {}),
    expiresAt: new Date(http.clock.now().getTime() + (answer.expires_in ?? 3600) * 1000),
  };
}
