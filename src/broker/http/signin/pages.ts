/**
 * The sign-in pages: the device verification form (RFC 8628 §3.3), the
 * consent page for clients the operator did not configure, and result pages.
 * Plain HTML forms, usable without JavaScript, labelled for screen readers;
 * every page says who is asking (by name, and whether that name is verified),
 * what it may do in plain words, and what to do next.
 */
import { redirectDestination, type OAuthClient } from '../../auth/clients/client.ts';
import { describeScopes } from '../../auth/tokens/scope.ts';
import { html, page, Raw } from './html.ts';
import { isLoopbackUrlHost } from '../../../transport/loopback.ts';

/**
 * Whether the client's name can be trusted, as one sentence for the person
 * deciding. "Verified" is kept for the operator's confidential clients
 * (`webClients[]`, always with a secret: src/broker/auth/clients/web-clients.ts),
 * whose requests only their holder can make. A public client's id proves
 * nothing about who started the request (RFC 8628 §5.4): anyone may start a
 * device sign-in as the built-in CLI and send the person its link.
 */
export function clientStanding(client: OAuthClient): { verified: boolean; sentence: string } {
  switch (client.kind) {
    case 'web':
      return { verified: true, sentence: "Verified: set up by your organisation's administrators." };
    case 'builtin':
      return {
        verified: false,
        sentence:
          'This is the demarkus command-line tool, but anyone can start a sign-in request in its name. Continue only if you ran demarkus-broker login yourself just now.',
      };
    case 'metadata-document':
      return {
        verified: false,
        sentence: `Not verified by your organisation: the name comes from a document published at ${new URL(client.clientId).host}.`,
      };
    case 'registered':
      return { verified: false, sentence: 'Not verified: the application chose this name itself when it registered.' };
  }
}

/** Who asks and what it may do: the client's name, its standing, and the access in plain words. */
function requester(client: OAuthClient, scope: string, verb: string): Raw {
  const standing = clientStanding(client);
  const access = describeScopes(scope);
  return html`
<p><strong>${client.name}</strong> ${verb}</p>
<p class="${standing.verified ? 'verified' : 'unverified'}">${standing.sentence}</p>
<p>If you continue, it can:</p>
<ul class="scopes">${new Raw(access.map((line) => html`<li>${line}</li>`.text).join(''))}</ul>`;
}

export function devicePage(input: {
  userCode: string;
  csrf: string;
  error?: string;
  /**
   * The program behind the code, when it is known and still pending (given in
   * the link, or typed and matched): the page is then the confirmation RFC
   * 8628 §5.4 asks for.
   */
  asking?: { client: OAuthClient; scope: string };
  /** Proof that `asking` was shown for this code (src/broker/http/signin/csrf.ts `requesterShown`). */
  requesterShown?: string;
}): string {
  const error =
    input.error === undefined ? html`` : html`<p class="error" id="code-error" role="alert">${input.error}</p>`;
  const described = input.error === undefined ? 'code-help' : 'code-help code-error';
  const who =
    input.asking === undefined
      ? html`<p>A program such as <code>demarkus-broker login</code> or an agent on another machine asked to sign in as you.</p>`
      : requester(input.asking.client, input.asking.scope, 'asks to sign in as you.');
  return page(
    'Sign in a device',
    html`
${who}
<p class="note" id="code-help">Only continue if you started this yourself and the code below is the one your device shows. Anyone who gets you to confirm their code can act as you.</p>
${error}
<form method="post" action="/device">
  <input type="hidden" name="csrf" value="${input.csrf}">
${
  input.requesterShown === undefined
    ? html``
    : html`  <input type="hidden" name="shown" value="${input.requesterShown}">
`
}  <label for="user_code">Code shown on your device</label>
  <input type="text" class="code" id="user_code" name="user_code" value="${input.userCode}" autocomplete="off" autocapitalize="characters" spellcheck="false" required aria-describedby="${described}" placeholder="XXXX-XXXX" maxlength="12">
  <div class="actions">
    <button type="submit" name="action" value="approve">Continue to sign-in</button>
    <button type="submit" name="action" value="deny" class="secondary">Deny</button>
  </div>
</form>`,
  );
}

export function consentPage(input: {
  client: OAuthClient;
  redirectUri: string;
  scope: string;
  consentId: string;
  csrf: string;
}): string {
  const where = redirectDestination(input.redirectUri);
  const loopbackOnly = isLoopbackUrlHost(new URL(input.redirectUri).hostname);
  return page(
    'Allow access?',
    html`
${requester(input.client, input.scope, 'wants to use the demarkus knowledge system as you.')}
<dl>
  <dt>After sign-in you are sent to</dt><dd><code>${where}</code>${loopbackOnly ? html` (a program on this computer)` : html``}</dd>
  <dt>Application ID</dt><dd class="detail"><code>${input.client.clientId}</code></dd>
</dl>
<p class="note">Only allow this if you started it yourself from that application.</p>
<form method="post" action="/oauth/authorize">
  <input type="hidden" name="csrf" value="${input.csrf}">
  <input type="hidden" name="consent_id" value="${input.consentId}">
  <div class="actions">
    <button type="submit" name="decision" value="approve">Allow and sign in</button>
    <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
  </div>
</form>`,
  );
}

/** What a result or error page adds after its sentence: the next step, a link to take it, the technical words. */
export type NextStep = { next?: string; link?: { href: string; label: string }; technical?: string };

export function messagePage(
  title: string,
  message: string,
  role: 'status' | 'alert' = 'status',
  step: NextStep = {},
): string {
  return page(
    title,
    html`<p role="${role}">${message}</p>
${step.next === undefined ? html`` : html`<p>${step.next}</p>`}
${step.link === undefined ? html`` : html`<p><a class="button" href="${step.link.href}">${step.link.label}</a></p>`}
${step.technical === undefined ? html`` : html`<p class="detail">What the sign-in service saw: <code>${step.technical}</code></p>`}`,
  );
}
