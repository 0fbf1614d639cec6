/**
 * A pending authorization request as the authorize endpoint stores it
 * (src/broker/auth/authorize/authorization-request.ts), for tests that drive
 * FlowState directly: what it holds does not matter to them, only that it is valid.
 */
import type { AuthorizationRequest } from '../../../src/broker/auth/authorize/authorization-request.ts';

export const someAuthorizationRequest: AuthorizationRequest = {
  clientId: 'c',
  redirectUri: 'http://127.0.0.1/cb',
  redirectUriGiven: true,
  codeChallenge: 'x'.repeat(43),
  scope: 'mark.read',
  resource: 'https://broker.example/mcp',
};
