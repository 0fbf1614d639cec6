/**
 * A real SignInContext (src/broker/auth/sign-in-setup.ts) for tests that call
 * the sign-in endpoints as functions: a minimal broker config, a fresh
 * signing key in a real key ring, and an upstream IdP that is never reached.
 * Used by test/broker/signin/token-endpoint.test.ts and test/security/code-replay.test.ts.
 */
import { stringify } from 'yaml';
import { loadKeyRing } from '../../../src/broker/auth/key-ring.ts';
import type { SignInContext } from '../../../src/broker/auth/sign-in-context.ts';
import { createSignInContext } from '../../../src/broker/auth/sign-in-setup.ts';
import { generateSigningKeyPem } from '../../../src/broker/auth/signing-key.ts';
import type { UpstreamIdp } from '../../../src/broker/auth/upstream/upstream-idp.ts';
import { parseBrokerConfig } from '../../../src/broker/config/index.ts';
import {
  type EphemeralStore,
  MemoryEphemeralStore,
  MemoryStateStore,
  type StateDocumentStore,
} from '../../../src/broker/state/index.ts';

/** An IdP at a closed port: begin gives a fixed round trip, finish returns no claims. */
export const unreachableUpstream: UpstreamIdp = {
  issuer: 'http://127.0.0.1:1',
  authorizationOrigin: 'http://127.0.0.1:1',
  begin: async () => ({ url: 'http://127.0.0.1:1/auth', roundTrip: { state: 's', nonce: 'n', codeVerifier: 'v' } }),
  finish: async () => ({}),
};

export async function testSignInContext({
  allowDomains = [],
  durable = new MemoryStateStore(),
  ephemeral = new MemoryEphemeralStore(),
}: {
  allowDomains?: string[];
  durable?: StateDocumentStore;
  ephemeral?: EphemeralStore;
} = {}): Promise<SignInContext> {
  const pem = generateSigningKeyPem();
  const config = parseBrokerConfig(
    stringify({
      server: { addr: '127.0.0.1:1', publicURL: 'http://127.0.0.1:1' },
      oidc: { brokerSigningKey: pem, issuer: 'http://127.0.0.1:2', clientID: 'b', allowDomains },
      storage: { backend: 'file', dir: '/tmp/unused' },
      worlds: [
        {
          name: 'root',
          internalAddress: 'localhost:9',
          tokensFile: '/tmp/unused/t.toml',
          defaultToken: { paths: ['/**'] },
        },
      ],
    }),
    {},
  );
  const ring = await loadKeyRing({ currentPem: pem, store: durable, previousTrustMs: 1000 });
  return createSignInContext({
    config,
    resource: 'http://127.0.0.1:3/mcp',
    ring,
    durable,
    ephemeral,
    upstream: unreachableUpstream,
  });
}
