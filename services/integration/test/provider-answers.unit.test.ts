import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ProviderError, readAnswer } from '../src/adapters/http.js';

const tokenAnswer = z.object({ access_token: z.string(), expires_in: z.number().nullish() });
const answer = (body: string) => new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });

describe('reading a provider answer', () => {
  it('keeps the fields it names and drops the others', async () => {
    const read = await readAnswer(answer('{"access_token":"a","expires_in":60,"scope":"x"}'), 'token', tokenAnswer);
    expect(read).toEqual({ access_token: 'a', expires_in: 60 });
  });

  it('refuses a missing required field with a ProviderError naming the place, never a value', async () => {
    const error = await readAnswer(answer('{"refresh_token":"secret-refresh"}'), 'token endpoint', tokenAnswer).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ message: 'token endpoint answered 200: unexpected access_token', body: null });
  });

  it('refuses a body that is not JSON', async () => {
    await expect(readAnswer(answer('<html>'), 'events list', tokenAnswer)).rejects.toThrow(
      'events list answered 200: not JSON',
    );
  });
});
