/**
 * The sign-in pages: the device verification form (RFC 8628 §3.3), the
 * consent page for clients the operator did not configure, and result pages.
 * Plain HTML forms, usable without JavaScript, labelled for screen readers.
 */
import type { OAuthClient } from '../../auth/clients/client.ts';
import { html, page, type Raw } from './html.ts';
import { isLoopbackUrlHost } from '../../../transport/loopback.ts';

export function devicePage(input: { userCode: string; csrf: string; error?: string }): string {
  const error =
    input.error === undefined ? html`` : html`<p class="error" id="code-error" role="alert">${input.error}</p>`;
  const described = input.error === undefined ? 'code-help' : 'code-help code-error';
  return page(
    'Sign in a device',
    html`
<p>A program such as <code>demarkus-broker login</code> or an agent on another machine asked to sign in as you.</p>
<p class="note" id="code-help">Only continue if you started this yourself and the code below is the one your device shows. Anyone who gets you to confirm their code can act as you.</p>
${error}
<form method="post" action="/device">
  <input type="hidden" name="csrf" value="${input.csrf}">
  <label for="user_code">Code shown on your device</label>
  <input type="text" id="user_code" name="user_code" value="${input.userCode}" autocomplete="off" autocapitalize="characters" spellcheck="false" required aria-describedby="${described}" placeholder="XXXX-XXXX" maxlength="12">
  <div>
    <button type="submit" name="action" value="approve">Continue to sign-in</button>
    <button type="submit" name="action" value="deny">Deny</button>
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
  const redirect = new URL(input.redirectUri);
  const where =
    redirect.protocol === 'http:' || redirect.protocol === 'https:'
      ? redirect.host
      : `${redirect.protocol}//${redirect.host}`;
  const loopbackOnly = isLoopbackUrlHost(redirect.hostname);
  return page(
    'Allow access?',
    html`
<p><strong>${input.client.name}</strong> wants to use the demarkus knowledge system as you.${input.client.kind === 'registered' ? html` (The application chose this name itself; it is not verified.)` : html``}</p>
<dl>
  <dt>Application</dt><dd><code>${input.client.clientId}</code></dd>
  <dt>After sign-in you are sent to</dt><dd><code>${where}</code>${loopbackOnly ? html` (a program on this computer)` : html``}</dd>
  <dt>Access</dt><dd>${input.scope}</dd>
</dl>
<p class="note">Only allow this if you started it yourself from that application.</p>
<form method="post" action="/oauth/authorize">
  <input type="hidden" name="csrf" value="${input.csrf}">
  <input type="hidden" name="consent_id" value="${input.consentId}">
  <button type="submit" name="decision" value="approve">Allow and sign in</button>
  <button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

export function messagePage(title: string, message: string, role: 'status' | 'alert' = 'status'): string {
  return page(title, html`<p role="${role}">${message}</p>` as Raw);
}
