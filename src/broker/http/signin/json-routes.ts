/**
 * The authorization server's JSON endpoints: device authorization, token,
 * revocation and registration. Form-encoded in (registration: JSON, RFC 7591
 * §3.1), JSON out, never cached, readable from any origin (no cookies are
 * involved).
 */
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { deviceAuthorizationEndpoint } from '../../auth/device/device-endpoints.ts';
import { registrationEndpoint, revocationEndpoint } from '../../auth/registration-endpoints.ts';
import { endpointPaths, type SignInContext } from '../../auth/sign-in-context.ts';
import { tokenEndpoint } from '../../auth/token-endpoint.ts';
import { BearerError } from '../../auth/bearer-error.ts';
import { userinfoEndpoint, userinfoVerifier } from '../../auth/userinfo-endpoint.ts';
import { acceptFormBodiesOnly, formOf, registerFormParser } from './form-body.ts';
import { allowAnyOrigin, noStore, oauthErrorHandler, preflight } from './replies.ts';

/** Well above the 4 KiB a registration may store (src/broker/auth/clients/registration-request.ts), so the parser says what is wrong. */
const registrationBodyLimitBytes = 64 * 1024;

/**
 * `preflightMaxAgeMs` is `server.cors.maxAge` (replies.ts `preflight`); `registrationLimit` charges
 * `/register` to the caller's address, on top of the scope's own limit.
 */
export function jsonRoutes(
  scope: FastifyInstance,
  context: SignInContext,
  preflightMaxAgeMs: number,
  registrationLimit?: onRequestHookHandler,
): void {
  registerFormParser(scope);
  scope.setErrorHandler(oauthErrorHandler);
  // The form endpoints in a scope of their own, without the JSON parser that registration needs.
  scope.register(async (forms) => {
    acceptFormBodiesOnly(forms);
    forms.post(endpointPaths.deviceAuthorization, async (request, reply) => {
      const body = await deviceAuthorizationEndpoint(context, request.headers.authorization, formOf(request.body));
      return noStore(allowAnyOrigin(reply)).send(body);
    });
    for (const path of [endpointPaths.token, endpointPaths.legacyToken]) {
      forms.post(path, async (request, reply) => {
        const body = await tokenEndpoint(context, request.headers.authorization, formOf(request.body));
        return noStore(allowAnyOrigin(reply)).send(body);
      });
    }
    for (const path of [endpointPaths.revocation, endpointPaths.legacyRevocation]) {
      forms.post(path, async (request, reply) => {
        await revocationEndpoint(context, request.headers.authorization, formOf(request.body));
        return noStore(allowAnyOrigin(reply)).send({});
      });
    }
  });
  if (context.registration) {
    const limited = registrationLimit === undefined ? {} : { onRequest: registrationLimit };
    scope.post(
      endpointPaths.registration,
      { bodyLimit: registrationBodyLimitBytes, ...limited },
      async (request, reply) => {
        const body = await registrationEndpoint(context, request.body);
        return noStore(allowAnyOrigin(reply)).code(201).send(body);
      },
    );
  }
  const verify = userinfoVerifier(context);
  for (const method of ['GET', 'POST'] as const) {
    scope.route({
      method,
      url: endpointPaths.userinfo,
      handler: async (request, reply) => {
        try {
          return noStore(allowAnyOrigin(reply)).send(await userinfoEndpoint(verify, request.headers.authorization));
        } catch (error) {
          if (!(error instanceof BearerError)) throw error;
          // RFC 6750 §3: the challenge names the problem; the body stays empty of detail.
          return noStore(allowAnyOrigin(reply))
            .code(error.status)
            .header('www-authenticate', `Bearer error="${error.error}"`)
            .send({ error: error.error, error_description: error.description });
        }
      },
    });
  }
  const paths = [
    endpointPaths.userinfo,
    endpointPaths.deviceAuthorization,
    endpointPaths.token,
    endpointPaths.legacyToken,
    endpointPaths.revocation,
    endpointPaths.legacyRevocation,
    ...(context.registration ? [endpointPaths.registration] : []),
  ];
  const answerPreflight = preflight(preflightMaxAgeMs);
  for (const path of paths) scope.options(path, answerPreflight);
}
