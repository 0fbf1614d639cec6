import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { BearerError } from '../auth/bearer-error.ts';
import { bearerChallenge, bearerErrorBody, type ChallengeOptions } from '../auth/bearer-challenge.ts';
import type { BearerVerifier } from '../auth/verify-bearer.ts';

/**
 * Rejects a request without a valid bearer token in `onRequest`, before its
 * body is read (MCP authorization: every request is verified, sessions are
 * never a substitute). The challenge names the protected-resource metadata
 * (RFC 9728 §5.1) so clients can discover where to sign in.
 */
export function bearerAuthHook(verify: BearerVerifier, challenge: ChallengeOptions): onRequestHookHandler {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      request.identity = await verify(request.headers.authorization);
    } catch (error) {
      const refusal =
        error instanceof BearerError
          ? error
          : new BearerError('ERR_BEARER_INVALID', 'verifier failed unexpectedly', { cause: error });
      request.log.info({ code: refusal.code, detail: refusal.message }, 'bearer token refused');
      return reply
        .code(refusal.status)
        .header('www-authenticate', bearerChallenge(refusal, challenge))
        .header('cache-control', 'no-store')
        .send(bearerErrorBody(refusal));
    }
  };
}
