import type { IncomingMessage } from 'node:http';
import type { FakeIdpStore } from './fake-idp-store.js';

/**
 * What the realm's page and admin handlers need of the fake provider. Structural, so those handlers and
 * fake-idp.ts (which routes requests to them) do not import each other.
 */
export interface FakeIdpRealm {
  readonly store: FakeIdpStore;
  readonly origin: string;
  readonly realm: string;
  readonly adminUrl: string;
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
