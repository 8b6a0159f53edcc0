import { createApiClient } from '@routinely/api-client';

/**
 * The session's life in the browser. The tokens are HttpOnly cookies the script never sees; what the script
 * knows is when the access token expires (from `/auth/me`'s `exp` or a sign-in's `expires_in`). It refreshes a
 * minute before that, once across every tab of the origin: the Web Lock serialises the tabs, and the tab that
 * got the lock second sees from the expiry shared in localStorage (not a token) that another tab has already
 * refreshed past what it knew. The server's reuse grace (contract, "Web console") covers a browser without Web
 * Locks.
 */
const LOCK = 'routinely-session-refresh';
const SHARED_EXPIRY = 'routinely.session.expiresAt';
const CHANNEL = 'routinely-session';
/** Refresh this long before the access token expires. */
const LEAD_MS = 60_000;

type SessionMessage = { type: 'refreshed'; expiresAt: number } | { type: 'signed-out' };
type SignedOutReason = 'expired' | 'signed-out';

/** A client without the 401 handling of client.ts: a refused refresh is an answer here, not a retry. */
const bare = createApiClient({ baseUrl: window.location.origin });
const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(CHANNEL) : undefined;
const listeners = new Set<(reason: SignedOutReason) => void>();
let timer: ReturnType<typeof setTimeout> | undefined;
/** The expiry of the access token this tab knows of (ms since the epoch). */
let knownExpiry = 0;
let inFlight: Promise<boolean> | undefined;
/** Whether this page has had a session: an expiry is news only then (a first visit just goes to sign-in). */
let hadSession = false;

/** Called when the session is gone (refresh refused, or signed out in this or another tab). */
export function onSignedOut(listener: (reason: SignedOutReason) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function signedOut(reason: SignedOutReason, tellOtherTabs = false): void {
  clearTimeout(timer);
  if (reason === 'expired' && !hadSession) return;
  hadSession = false;
  if (reason === 'signed-out') writeSharedExpiry(0);
  if (tellOtherTabs) channel?.postMessage({ type: 'signed-out' } satisfies SessionMessage);
  for (const listener of listeners) listener(reason);
}

/** Plans the next refresh for an access token expiring at `expiresAt` (ms since the epoch). */
export function sessionExpiresAt(expiresAt: number): void {
  hadSession = true;
  knownExpiry = expiresAt;
  if (expiresAt > readSharedExpiry()) writeSharedExpiry(expiresAt);
  clearTimeout(timer);
  const wait = Math.max(0, expiresAt - LEAD_MS - Date.now());
  timer = setTimeout(() => void refreshSession(), Math.min(wait, 2 ** 31 - 1));
}

function readSharedExpiry(): number {
  try {
    return Number(localStorage.getItem(SHARED_EXPIRY) ?? 0);
  } catch {
    return 0;
  }
}

function writeSharedExpiry(at: number): void {
  try {
    localStorage.setItem(SHARED_EXPIRY, String(at));
  } catch {
    // Storage can be off (private mode): the lock alone still keeps the tabs apart.
  }
}

async function refreshNow(asked: number): Promise<boolean> {
  // Another tab refreshed past the expiry this tab knew when it asked: the cookies are already the new ones.
  const shared = readSharedExpiry();
  if (shared > asked) {
    sessionExpiresAt(shared);
    return true;
  }
  // The refresh cookie is sent by the browser (Path=/api/v1/auth); the body names no token.
  const { data } = await bare.POST('/api/v1/auth/refresh', { body: {} });
  if (!data) return false;
  const expiresAt = Date.now() + data.expires_in * 1000;
  sessionExpiresAt(expiresAt);
  channel?.postMessage({ type: 'refreshed', expiresAt } satisfies SessionMessage);
  return true;
}

/** Runs the refresh while holding the origin-wide lock, so two tabs never refresh at once. */
function underLock(asked: number): Promise<boolean> {
  const locks = navigator.locks;
  if (!locks) return refreshNow(asked);
  return new Promise((resolve, reject) => {
    locks.request(LOCK, () => refreshNow(asked).then(resolve, reject)).catch(reject);
  });
}

/** Refreshes the session cookie once across tabs; true when a working session is there afterwards. */
export function refreshSession(): Promise<boolean> {
  const running =
    inFlight ??
    underLock(knownExpiry).finally(() => {
      inFlight = undefined;
    });
  inFlight = running;
  return running;
}

channel?.addEventListener('message', (event: MessageEvent<SessionMessage>) => {
  if (event.data.type === 'refreshed') sessionExpiresAt(event.data.expiresAt);
  else signedOut('signed-out');
});
