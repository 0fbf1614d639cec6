/**
 * A minimal browser for the sign-in pages: fetch with manual redirects, a
 * cookie jar (name, value, path; per origin), and form submission that keeps
 * hidden inputs and picks a submit button, as a person clicking would.
 */
export type Page = { url: string; status: number; html: string; headers: Headers };

type Cookie = { value: string; path: string };

export class UserAgent {
  readonly #jar = new Map<string, Map<string, Cookie>>();
  /** Every request made, as "METHOD path status", for debugging a failed flow. */
  readonly trace: string[] = [];
  /** Every URL requested, whole (query included), for tests that look for its values elsewhere. */
  readonly visited: string[] = [];
  /** Navigation stops (without fetching) at a URL with this prefix: an OAuth client's redirect URI. */
  stopAt: string | undefined;

  async go(
    url: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<Page> {
    let current = url;
    let method = init.method ?? 'GET';
    let body: string | undefined = init.form === undefined ? undefined : new URLSearchParams(init.form).toString();
    for (let hop = 0; hop < 20; hop++) {
      if (this.stopAt !== undefined && current.startsWith(this.stopAt))
        return { url: current, status: 0, html: '', headers: new Headers() };
      const target = new URL(current);
      const headers: Record<string, string> = { ...(hop === 0 ? init.headers : {}) };
      const cookie = this.#cookieHeader(target);
      if (cookie !== '') headers.cookie = cookie;
      if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
      const response = await fetch(target, {
        method,
        headers,
        redirect: 'manual',
        ...(body === undefined ? {} : { body }),
      });
      this.trace.push(`${method} ${target.pathname} ${response.status}`);
      this.visited.push(target.href);
      this.#store(target, response.headers.getSetCookie());
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location !== null) {
        await response.body?.cancel();
        current = new URL(location, target).href;
        method = 'GET';
        body = undefined;
        continue;
      }
      return { url: current, status: response.status, html: await response.text(), headers: response.headers };
    }
    throw new Error(`too many redirects: ${this.trace.join(', ')}`);
  }

  /** Submits the page's form number `index`, with `fields` over its inputs; `button` is `name=value` of the button clicked. */
  async submit(page: Page, fields: Record<string, string> = {}, button?: string, index = 0): Promise<Page> {
    const forms = [...page.html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)];
    const form = forms[index];
    if (form === undefined)
      throw new Error(`no form ${index} on ${page.url} (status ${page.status}): ${page.html.slice(0, 300)}`);
    const action = attribute(form[1]!, 'action') ?? page.url;
    const values: Record<string, string> = {};
    for (const input of form[2]!.matchAll(/<input\b([^>]*)>/g)) {
      const name = attribute(input[1]!, 'name');
      if (name !== undefined) values[name] = decodeEntities(attribute(input[1]!, 'value') ?? '');
    }
    if (button !== undefined) {
      const [name, value] = button.split('=') as [string, string];
      values[name] = value;
    }
    return this.go(new URL(decodeEntities(action), page.url).href, {
      method: (attribute(form[1]!, 'method') ?? 'get').toUpperCase(),
      form: { ...values, ...fields },
    });
  }

  cookie(origin: string, name: string): string | undefined {
    return this.#jar.get(new URL(origin).origin)?.get(name)?.value;
  }

  #cookieHeader(url: URL): string {
    const cookies = this.#jar.get(url.origin);
    if (cookies === undefined) return '';
    return [...cookies]
      .filter(([, c]) => url.pathname.startsWith(c.path))
      .map(([name, c]) => `${name}=${c.value}`)
      .join('; ');
  }

  #store(url: URL, setCookies: string[]): void {
    const cookies = this.#jar.get(url.origin) ?? new Map<string, Cookie>();
    for (const line of setCookies) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim());
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      const path = attributes.find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
      const expired = attributes.some((a) => /^max-age=0$/i.test(a)) || value === '';
      if (expired) cookies.delete(name);
      else cookies.set(name, { value, path });
    }
    this.#jar.set(url.origin, cookies);
  }
}

function attribute(tag: string, name: string): string | undefined {
  return new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1];
}

function decodeEntities(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
