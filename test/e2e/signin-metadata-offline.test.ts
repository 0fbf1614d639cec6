/**
 * A client that identifies itself with a Client ID Metadata Document the
 * broker cannot fetch (an air-gapped install, a laptop offline): the person
 * reads what happened and whom to ask on the page, and the operator's log
 * says why the fetch failed and which setting lets clients register with
 * RFC 7591 instead. The document's host is a loopback port nothing listens
 * on (the fixture admits loopback documents), which fails as an offline
 * host does: no answer from the network.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { startSignInStack, type SignInStack } from './signin-fixture.ts';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The visible text of a page (tags dropped, entities of the escaper decoded, whitespace folded). */
function visibleText(html: string): string {
  return html
    .replace(/<style[\s\S]*?<\/style>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

describe('sign-in with a client metadata document the broker cannot fetch (real broker, real fetch)', () => {
  let stack: SignInStack;
  const logLines: string[] = [];
  let clientId: string;

  before(async () => {
    stack = await startSignInStack({ logLines });
    clientId = `http://127.0.0.1:${await closedPort()}/oauth/client.json`;
  });
  after(() => stack?.close());

  it('shows a page that says what happened and what to do, and logs why with the setting to change', async () => {
    const authorize = new URL(`${stack.issuer}/oauth/authorize`);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: 'http://127.0.0.1:1/callback',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      state: 'offline',
      resource: stack.resource,
    }).toString();
    const response = await fetch(authorize, { redirect: 'manual' });
    assert.equal(response.status, 400);
    const text = visibleText(await response.text());
    assert.match(text, /This sign-in link is not valid/);
    assert.match(
      text,
      new RegExp(`client metadata document at ${clientId.replace(/[.]/g, '\\.')}, which could not be fetched`),
    );
    assert.match(
      text,
      /set oauth\.clientMetadataDocuments\.disabled: true, so apps register themselves instead \(RFC 7591\)/,
    );
    assert.match(text, /start the sign-in again from the app/);

    const refusals = logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.msg === 'sign-in page refused: This sign-in link is not valid');
    assert.equal(refusals.length, 1, logLines.join('\n'));
    const [entry] = refusals;
    assert.equal(entry!.level, 40); // pino's warn (the fixture's logger keeps numeric levels)
    assert.equal(
      entry!.detail,
      `client metadata document ${clientId} could not be fetched: connection refused, nothing listens at that address (ECONNREFUSED). A broker with no way out to the internet cannot read these documents: set oauth.clientMetadataDocuments.disabled: true, and clients register with RFC 7591 instead`,
    );
  });
});
