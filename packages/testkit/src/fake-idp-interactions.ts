import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { escapeHtml, type FakeIdpRealm, readBody } from './fake-idp-http.js';

function page(res: ServerResponse, status: number, title: string, action: string, fields: string, note = '') {
  const inputs = fields
    .split(',')
    .map((name) => {
      const type = name === 'password' ? 'password' : name === 'email' ? 'email' : 'text';
      return `<label>${name} <input name="${name}" type="${type}"></label><br>`;
    })
    .join('');
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(
    `<!doctype html><html><body><h1>${title}</h1>${note ? `<p class="error">${escapeHtml(note)}</p>` : ''}` +
      `<form method="post" action="${action}">${inputs}<button type="submit">Continue</button></form></body></html>`,
  );
}

/**
 * The provider's login and sign-up pages: plain HTML forms a test fills in by POSTing the fields (see
 * FakeIdpBrowser) and a person fills in from a browser. Credentials are checked against the store.
 */
export async function handleInteraction(
  idp: FakeIdpRealm,
  provider: Provider,
  req: IncomingMessage,
  res: ServerResponse,
) {
  const path = (req.url ?? '').split('?')[0] ?? '';
  const match = /\/interaction\/([^/]+)(?:\/(login|create))?$/.exec(path);
  if (!match) {
    res.writeHead(404).end();
    return;
  }
  const [, uid, step] = match;
  const base = `/realms/${idp.realm}/interaction/${uid}`;
  const details = await provider.interactionDetails(req, res);
  if (req.method === 'GET') {
    if (details.prompt.name === 'create')
      return page(res, 200, 'Create an account', `${base}/create`, 'email,password,given_name,family_name');
    if (details.prompt.name === 'login') return page(res, 200, 'Sign in', `${base}/login`, 'email,password');
    // Consent is granted by loadExistingGrant; any other prompt just continues.
    return provider.interactionFinished(req, res, {}, { mergeWithLastSubmission: true });
  }
  const form = new URLSearchParams(await readBody(req));
  const email = form.get('email') ?? '';
  const password = form.get('password') ?? '';
  if (step === 'create') {
    if (!email || password.length < 8) {
      return page(
        res,
        400,
        'Create an account',
        `${base}/create`,
        'email,password,given_name,family_name',
        'Email and a password of 8+ characters are required',
      );
    }
    if (idp.store.byEmail(email)) {
      return page(
        res,
        409,
        'Create an account',
        `${base}/create`,
        'email,password,given_name,family_name',
        'This email is already registered',
      );
    }
    const account = idp.store.addAccount({
      email,
      password,
      emailVerified: false,
      givenName: form.get('given_name') || undefined,
      familyName: form.get('family_name') || undefined,
    });
    return provider.interactionFinished(
      req,
      res,
      { create: { sub: account.sub }, login: { accountId: account.sub } },
      { mergeWithLastSubmission: false },
    );
  }
  const account = idp.store.byEmail(email);
  if (!account?.enabled || account.password !== password) {
    return page(res, 401, 'Sign in', `${base}/login`, 'email,password', 'Invalid email or password');
  }
  return provider.interactionFinished(
    req,
    res,
    { login: { accountId: account.sub } },
    { mergeWithLastSubmission: false },
  );
}
