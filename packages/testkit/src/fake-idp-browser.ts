/**
 * A minimal browser for the fake provider's pages: follows redirects by hand, keeps the provider's cookies,
 * fills in the login / sign-up / logout forms. It stops at the first redirect that leaves the provider
 * (the relying party's callback or post-logout page) and returns that URL, so the test can hand it to the
 * service under test with its own cookies.
 */
export class FakeIdpBrowser {
  private readonly cookies = new Map<string, string>();
  constructor(private readonly origin: string) {}

  /** Starts at the authorization URL, signs in (or signs up, for prompt=create), returns the callback URL. */
  async signIn(
    authorizationUrl: string,
    credentials: { email: string; password: string; given_name?: string; family_name?: string },
  ): Promise<string> {
    let url = authorizationUrl;
    for (let hop = 0; hop < 20; hop += 1) {
      const res = await this.request(url);
      const location = res.headers.get('location');
      if (location) {
        const next = new URL(location, url).toString();
        if (!next.startsWith(this.origin)) return next;
        url = next;
        continue;
      }
      const html = await res.text();
      const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
      if (res.status !== 200 || !action)
        throw new Error(`unexpected provider page (${res.status}): ${html.slice(0, 200)}`);
      const posted = await this.request(new URL(action, url).toString(), new URLSearchParams(credentials));
      const after = posted.headers.get('location');
      if (!after)
        throw new Error(`provider refused the form (${posted.status}): ${(await posted.text()).slice(0, 200)}`);
      url = new URL(after, url).toString();
      if (!url.startsWith(this.origin)) return url;
    }
    throw new Error('too many redirects at the provider');
  }

  /** Follows an RP-initiated logout URL, confirms the logout form, returns the post-logout redirect. */
  async signOut(endSessionUrl: string): Promise<string> {
    const res = await this.request(endSessionUrl);
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1];
    if (!action || !xsrf) throw new Error(`no logout form (${res.status}): ${html.slice(0, 200)}`);
    let posted = await this.request(
      new URL(action, endSessionUrl).toString(),
      new URLSearchParams({ xsrf, logout: 'yes' }),
    );
    let url = new URL(action, endSessionUrl).toString();
    for (let hop = 0; hop < 10; hop += 1) {
      const location = posted.headers.get('location');
      if (!location) return url;
      url = new URL(location, url).toString();
      if (!url.startsWith(this.origin)) return url;
      posted = await this.request(url);
    }
    return url;
  }

  async request(url: string, form?: URLSearchParams): Promise<Response> {
    const headers: Record<string, string> = {};
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(url, {
      method: form ? 'POST' : 'GET',
      headers,
      redirect: 'manual',
      ...(form ? { body: form.toString() } : {}),
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const eq = pair?.indexOf('=') ?? -1;
      if (!pair || eq < 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(cookie) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }
}
