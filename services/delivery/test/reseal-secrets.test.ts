import { createCipheriv, randomBytes } from 'node:crypto';
import { DEV_ENCRYPTION_KEY, ManualClock, SecretBox } from '@routinely/platform';
import { createTestDatabase } from '@routinely/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { createEndpoint, sqlRows, startHarness } from './harness.js';

const clock = new ManualClock('2026-11-21T08:00:00.000Z');

/** The sealed form webhook secrets had before the endpoint id was bound, as the migration marks it (`v0`). */
function unboundSeal(plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(DEV_ENCRYPTION_KEY, 'base64'), iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v0', iv, cipher.getAuthTag(), data]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

describe('webhook secrets sealed before the endpoint id was bound', () => {
  const dbs: Awaited<ReturnType<typeof createTestDatabase>>[] = [];
  afterAll(async () => {
    for (const db of dbs) await db.drop();
  });

  it('are re-sealed with the endpoint id at start and keep their plaintext', async () => {
    const db = await createTestDatabase();
    dbs.push(db);
    const first = await startHarness({ clock, db });
    const user = first.tokens.user();
    const endpoint = await createEndpoint(first, user, { url: 'http://127.0.0.1:9/hook' });
    const box = new SecretBox(DEV_ENCRYPTION_KEY);
    const [stored] = await sqlRows<{ secret_sealed: string }>(first.orm, 'select secret_sealed from webhook_endpoints');
    expect(box.open(String(stored?.secret_sealed), endpoint.id)).toBe(endpoint.secret);
    await sqlRows(first.orm, 'update webhook_endpoints set secret_sealed = ?', [unboundSeal(endpoint.secret)]);
    await first.close();

    const restarted = await startHarness({ clock, db });
    const [resealed] = await sqlRows<{ secret_sealed: string }>(
      restarted.orm,
      'select secret_sealed from webhook_endpoints',
    );
    const sealed = String(resealed?.secret_sealed);
    expect(sealed).toMatch(/^v1\./);
    expect(box.open(sealed, endpoint.id)).toBe(endpoint.secret);
    expect(() => box.open(sealed, 'another-endpoint')).toThrow();
    await restarted.close();
  });
});
