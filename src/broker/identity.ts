/**
 * Who is calling, once a bearer token has been verified at the gateway. Tools
 * read this; they never see the token itself (no token passthrough).
 */
export type Identity = {
  /** Stable subject of the token (`sub`). Never logged raw: see `subjectLogId`. */
  subject: string;
  /** Lower-cased, trimmed email; the identity the broker authorises and records as `agent`. */
  email: string;
  emailVerified: boolean;
  /** Lower-cased group names from the IdP's `groups` claim. */
  groups: readonly string[];
  /** The IdP's hosted-domain claim (`hd`), when present. */
  hostedDomain?: string;
  /**
   * OAuth scopes the token grants (`mark.read`, `mark.write`): checked per
   * JSON-RPC call at the gateway (`src/broker/http/scope-hook.ts`). Absent only
   * for identities the broker makes for itself; absent grants nothing.
   */
  scopes?: readonly string[];
  /** Which key vouched for the token: the broker's own signing key, or the upstream IdP's JWKS. */
  issuedBy: 'broker' | 'upstream';
  /**
   * The operator-configured web client (`webClients[]`) the token was issued
   * to, if any: a server-rendered app showing documents to people, which gets
   * documents whole (no per-session "unchanged" notices, no outlines).
   */
  webClient?: string;
  /**
   * When the bearer that vouched for this identity stops being accepted, in ms
   * since the epoch: the token's `exp` (a broker token's, or the upstream ID
   * token's) plus the verifier's clock leeway (`src/broker/auth/verify-bearer.ts`).
   * Long-lived streams opened with it end then (`src/broker/http/stream-expiry.ts`).
   * Absent for a token without `exp` and for identities the broker makes for itself.
   */
  acceptedUntil?: number;
};
