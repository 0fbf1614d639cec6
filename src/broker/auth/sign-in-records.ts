/**
 * The shapes of the sign-in records kept in the short-lived store (device
 * grants, pending authorizations, IdP round trips, codes), checked with zod
 * whenever one is read back: with Redis the bytes come from outside this
 * process, so a record is trusted only once it has the shape the code
 * expects. A record that does not is refused, never cast.
 */
import { z } from 'zod';
import { StateUnavailableError, type JsonValue } from '../state/index.ts';

const identity = z.object({
  subject: z.string(),
  email: z.string(),
  groups: z.array(z.string()),
  hostedDomain: z.string().optional(),
});

export const authorizationRequestRecord = z.object({
  clientId: z.string(),
  redirectUri: z.string(),
  redirectUriGiven: z.boolean(),
  state: z.string().optional(),
  codeChallenge: z.string(),
  scope: z.string(),
  resource: z.string(),
  nonce: z.string().optional(),
});

const upstreamRoundTrip = { state: z.string(), nonce: z.string(), codeVerifier: z.string() };

export const roundTripRecord = z.discriminatedUnion('kind', [
  z.object({ ...upstreamRoundTrip, kind: z.literal('device'), deviceKey: z.string() }),
  z.object({ ...upstreamRoundTrip, kind: z.literal('authorize'), request: authorizationRequestRecord }),
]);

export const codeRecord = z.object({
  request: authorizationRequestRecord,
  identity,
  authTime: z.number(),
  issuedAt: z.number(),
  status: z.enum(['issued', 'redeemed', 'replayed']),
  family: z.string().optional(),
});

export const deviceGrantRecord = z.object({
  clientId: z.string(),
  scope: z.string(),
  resource: z.string(),
  userCodeHash: z.string(),
  status: z.enum(['pending', 'approved', 'denied', 'redeemed']),
  expiresAt: z.number(),
  intervalMs: z.number(),
  lastPollAt: z.number().optional(),
  identity: identity.optional(),
});

/** `value` as `schema` says, null for an absent entry; a malformed entry is refused as unreadable state. */
export function readRecord<T>(schema: z.ZodType<T>, key: string, value: JsonValue | null): T | null {
  if (value === null) return null;
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new StateUnavailableError(`short-lived record ${key.split(':')[0]} has an unexpected shape`);
  return parsed.data;
}

/** A record on its way into the store: records are plain JSON by construction. */
export function toJson(record: object): JsonValue {
  return record as JsonValue;
}
