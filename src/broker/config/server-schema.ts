/**
 * `server.*`: the two listeners, public URLs, token lifetimes and the MCP
 * gateway knobs, with the Go broker's keys and defaults (Go broker `config.go`, chart
 * `deploy/helm/demarkus-broker/values.yaml`).
 */
import { z } from 'zod';
import {
  cookieKey,
  countOrDefault,
  duration,
  durationZeroAllowed,
  flag,
  hostHeader,
  k8sName,
  listenAddress,
  origin,
  text,
  webUrl,
} from './fields.ts';

const mcpTlsSchema = z.strictObject({
  /** PEM certificate chain; both files or neither (checked in rules.ts). */
  certFile: text().optional(),
  keyFile: text().optional(),
});

const mcpSchema = z.strictObject({
  /** MCP listener; must not collide with `server.addr`. */
  addr: listenAddress().default(':8081'),
  /** External base URL of the MCP listener; defaults to `server.publicURL` (resolved at load). */
  publicURL: webUrl({ trimSlash: true }).optional(),
  tls: mcpTlsSchema.prefault({}),
  /** Go broker `dispatchWithAuth`: the first-mint retry loop that covers a world's tokens reload lag. */
  firstMintMaxAttempts: countOrDefault(6),
  firstMintInitialBackoff: duration('250ms'),
  firstMintMaxBackoff: duration('8s'),
  /**
   * Tool calls, resources/read and prompts/get one subject may run at once in
   * this process, over all its sessions; more wait behind its own
   * (docs/security.md, "Budgets and fairness").
   */
  callsPerSubject: countOrDefault(4),
  /**
   * The same bound while other subjects have calls running or had one in the
   * last second; at most `callsPerSubject` (docs/security.md, "Budgets and fairness").
   */
  callsPerSubjectShared: countOrDefault(1),
  /** Calls of one subject that may wait behind those; one more is refused (a tool error, or JSON-RPC -32000). */
  queuedCallsPerSubject: countOrDefault(64),
});

/**
 * The management listener (new): `/healthz`, `/readyz`, `/metrics`, apart from the issuer so
 * an ingress routing the issuer host never exposes them (docs/decisions.md). 8090 is clear of
 * the issuer and MCP defaults (8080, 8081) and of `npm start`'s ports (8080 to 8083, worlds
 * 6401 to 6403), and is not Prometheus's own 9090 or node_exporter's 9100, often on the same host.
 */
const managementSchema = z.strictObject({
  addr: listenAddress().default(':8090'),
});

export const serverSchema = z.strictObject({
  /** Issuer listener (`:8080` style): sign-in, OAuth and discovery documents. */
  addr: listenAddress(),
  /** The broker's external base URL: issuer of its tokens (`iss`, `aud`); trailing `/` trimmed. */
  publicURL: webUrl({ trimSlash: true }),
  /** DNS-rebinding guard: accepted `Origin` values; default the origins of both public URLs. */
  allowedOrigins: z.array(origin()).optional(),
  /**
   * CORS for browser clients on the MCP listener (`/mcp` and the resource
   * metadata): the origins allowed to read answers, none by default; `*` allows
   * any origin, and then never with credentials.
   */
  cors: z
    .strictObject({
      allowedOrigins: z.array(z.union([z.literal('*'), origin()])).default([]),
      allowCredentials: z.boolean().default(false),
      /** Preflight cache, for the issuer listener's JSON endpoints too (src/broker/http/signin/replies.ts). */
      maxAge: durationZeroAllowed('10m'),
    })
    .superRefine((cors, ctx) => {
      // On the field, with the conflict code (issues.ts `codeOf`), as the cross-field rules in rules.ts.
      if (cors.allowCredentials && cors.allowedOrigins.includes('*'))
        ctx.addIssue({
          code: 'custom',
          path: ['allowCredentials'],
          message: 'cannot be true when server.cors.allowedOrigins has "*"',
          params: { conflict: true },
        });
    })
    .prefault({}),
  /** DNS-rebinding guard: accepted `Host` values; default the hosts of both public URLs. */
  allowedHosts: z.array(hostHeader()).optional(),
  /** Namespace of the broker's own Secrets (kubernetes storage). */
  brokerNamespace: k8sName().optional(),
  idTokenTTL: duration('15m'),
  refreshTokenTTL: duration('2160h'),
  // Sign-in keys of the Go broker: accepted and validated now so a Go config
  // loads unchanged; the sign-in issue puts them to use.
  cookieKey: cookieKey().optional(),
  stateTTL: duration('5m'),
  insecureCookies: flag(false),
  deviceCodeTTL: duration('10m'),
  devicePollInterval: duration('5s'),
  refreshTokensSecret: k8sName().default('demarkus-broker-refresh-tokens'),
  mcp: mcpSchema.prefault({}),
  management: managementSchema.prefault({}),
  /**
   * On SIGTERM (new): `/readyz` answers 503 at once, the listeners keep serving for `drainDelay`
   * while endpoints and load balancers stop sending here, then stop accepting and give the requests
   * in flight up to `timeout` before closing what is left (SSE streams included). Their sum must stay
   * under the pod's terminationGracePeriodSeconds (chart default 30 s).
   */
  shutdown: z
    .strictObject({
      drainDelay: durationZeroAllowed('5s'),
      timeout: durationZeroAllowed('20s'),
    })
    .prefault({}),
});
