/**
 * DEVELOPMENT ONLY: an embedded OpenID provider (oidc-provider) for
 * `npm start` and the tests, so every sign-in flow works on a laptop with no
 * real IdP. Any email address signs in, with no password, as a verified
 * address whose hosted domain (`hd`) is the email's domain. Keys and sessions
 * live in memory. Never expose it beyond loopback.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorWithCode } from '../errors/coded-error.ts';
import { html, page, pageStylesheet, Raw, stylesheetPath } from '../broker/http/signin/html.ts';
import type Provider from 'oidc-provider';
import type { AccountClaims, Configuration, KoaContextWithOIDC } from 'oidc-provider';

/** A package only development installs have is missing (the dev stack in a production install). */
export class DevDependencyMissingError extends errorWithCode('ERR_DEV_DEPENDENCY_MISSING') {}

export type DevIdpClient = { clientId: string; clientSecret: string; redirectUris: string[] };

/** Claims of the account behind an email; tests override some (an unverified address, another `hd`). */
export type DevIdpClaims = { email_verified?: boolean; hd?: string | null; groups?: string[] };

export type DevIdpOptions = {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  clients: DevIdpClient[];
  claimsFor?: (email: string) => DevIdpClaims;
  /** Print oidc-provider's start-up warnings (default false: this module already says it is development only). */
  verbose?: boolean;
};

export type DevIdp = { issuer: string; port: number; close(): Promise<void> };

/**
 * oidc-provider is a development dependency: the production image does not
 * ship it (test/charts/image.test.ts), so it is loaded only when the dev stack
 * runs, with a message that says what to install when it is missing.
 */
export async function loadOidcProvider(): Promise<typeof Provider> {
  try {
    return (await import('oidc-provider')).default;
  } catch (cause) {
    if ((cause as { code?: unknown } | null)?.code !== 'ERR_MODULE_NOT_FOUND') throw cause;
    throw new DevDependencyMissingError(
      'the development stack needs the development package oidc-provider, which this install omits; ' +
        'run it from a checkout with `npm install` (development packages included), never from the production image',
      { cause },
    );
  }
}

export async function startDevIdp(options: DevIdpOptions): Promise<DevIdp> {
  const OidcProvider = await loadOidcProvider();
  let handler: (request: IncomingMessage, response: ServerResponse) => void = (_q, r) => void r.writeHead(503).end();
  const server: Server = createServer((request, response) => handler(request, response));
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const provider = quietly(options.verbose === true, () => new OidcProvider(issuer, providerConfiguration(options)));
  const providerHandler = provider.callback();
  handler = (request, response) => {
    if (request.method === 'GET' && (request.url ?? '').split('?')[0] === stylesheetPath)
      return void response
        .writeHead(200, { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'public, max-age=3600' })
        .end(pageStylesheet);
    const interaction = /^\/interaction\/([A-Za-z0-9_-]+)$/.exec((request.url ?? '').split('?')[0]!);
    if (interaction === null) return void providerHandler(request, response);
    void serveLogin(provider, request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(400, { 'content-type': 'text/plain' });
      response.end(`sign-in failed: ${(error as Error).message}\n`);
    });
  };
  return {
    issuer,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function providerConfiguration(options: DevIdpOptions): Configuration {
  return {
    clients: options.clients.map((c) => ({
      client_id: c.clientId,
      client_secret: c.clientSecret,
      redirect_uris: c.redirectUris,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    })),
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    claims: { openid: ['sub', 'hd'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
    scopes: ['openid', 'email', 'profile'],
    // Put the requested claims in the ID token, as Google does; the broker reads no userinfo.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // First-party development client: consent is implied, only the login prompt remains.
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const grantId = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client!.clientId,
        accountId: ctx.oidc.session!.accountId!,
      });
      grant.addOIDCScope('openid email profile');
      grant.addOIDCClaims(['email', 'email_verified', 'groups', 'hd', 'name']);
      await grant.save();
      return grant;
    },
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => accountClaims(id, options.claimsFor) }),
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 3600, Grant: 3600 },
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.body = loginLayout(
        'Sign-in error',
        html`<p role="alert">The development sign-in could not go on: ${String(out.error_description ?? out.error)}.</p>
<p>Go back to the application or terminal you were using and start signing in again.</p>`.text,
      );
    },
  };
}

/** The account id (and `sub`) of an email: reversible, so the provider needs no account store. */
const accountIdOf = (email: string) => `dev.${Buffer.from(email).toString('base64url')}`;

function accountClaims(accountId: string, claimsFor: DevIdpOptions['claimsFor']): AccountClaims {
  const email = Buffer.from(accountId.replace(/^dev\./, ''), 'base64url').toString('utf8');
  const extra = claimsFor?.(email) ?? {};
  const domain = email.split('@')[1] ?? '';
  const hd = extra.hd === undefined ? domain : extra.hd;
  return {
    sub: accountId,
    email,
    email_verified: extra.email_verified ?? true,
    name: email.split('@')[0],
    groups: extra.groups ?? ['developers'],
    ...(hd === null || hd === '' ? {} : { hd }),
  };
}

/** GET shows the login form; POST signs the typed email in. */
async function serveLogin(provider: Provider, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(request, response);
  if (request.method === 'GET') {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    return void response.end(loginLayout('Development sign-in', loginForm(details.uid)));
  }
  const email = (new URLSearchParams(await readBody(request)).get('email') ?? '').trim().toLowerCase();
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) {
    response.writeHead(400, { 'content-type': 'text/html; charset=utf-8' });
    return void response.end(
      loginLayout('Development sign-in', `<p role="alert">Enter an email address.</p>${loginForm(details.uid)}`),
    );
  }
  await provider.interactionFinished(
    request,
    response,
    { login: { accountId: accountIdOf(email) } },
    { mergeWithLastSubmission: false },
  );
}

function loginForm(uid: string): string {
  return html`<form method="post" action="/interaction/${uid}">
<label for="email">Email address</label>
<input type="email" id="email" name="email" autocomplete="email" required autofocus>
<div class="actions"><button type="submit">Sign in</button></div>
</form>`.text;
}

/** The broker's page layout and stylesheet, under the development warning. */
function loginLayout(title: string, body: string): string {
  const banner = html`<p class="dev" role="note"><strong>Development identity provider.</strong> Any email address signs in, without a password. Not for production.</p>
`;
  return page(title, new Raw(body), { banner });
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > 16 * 1024) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** oidc-provider announces its development defaults on the console; this module's header says the same once. */
function quietly<T>(verbose: boolean, create: () => T): T {
  if (verbose) return create();
  const { warn, info } = console;
  const drop =
    (original: (...args: unknown[]) => void) =>
    (...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].includes('oidc-provider')) return;
      original(...args);
    };
  console.warn = drop(warn);
  console.info = drop(info);
  try {
    return create();
  } finally {
    console.warn = warn;
    console.info = info;
  }
}
