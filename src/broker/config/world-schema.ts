/**
 * `worlds[]` (Go broker `config.go` `WorldConfig`), plus `serverName`: the TLS name to verify when
 * `internalAddress` is an IP or differs from the certificate's DNS name (quiche
 * checks server names against DNS SANs only).
 */
import { z } from 'zod';
import { dialAddress, hostName, k8sName, lowerList, markUrl, text, tokenPathPattern, worldName } from './fields.ts';

/** The writer allowlist (Go broker `authz.go` `worldAllows`); entries lower-cased and trimmed. */
const allowSchema = z.strictObject({
  domains: lowerList(),
  groups: lowerList(),
  emails: lowerList(),
});

const defaultTokenSchema = z.strictObject({
  /** Globs written into the world's tokens.toml for the broker write token; operations are always `publish`. */
  paths: z.array(tokenPathPattern()).min(1, 'must list at least one path pattern (e.g. "/**")'),
});

export const worldSchema = z.strictObject({
  name: worldName(),
  /** Namespace of the world's Service and tokens Secret (kubernetes). */
  namespace: k8sName().optional(),
  /** Secret holding the world's tokens.toml (kubernetes storage). */
  tokensSecret: k8sName().optional(),
  /** The world's tokens.toml on local disk (file storage). */
  tokensFile: text().optional(),
  /** External `mark://host:port` for clients (`mark_worlds` url column). */
  publicURL: markUrl().optional(),
  /** Dial `host:port`; default `<name>.<namespace>.svc.cluster.local:6309`. */
  internalAddress: dialAddress().optional(),
  /** TLS name to present and verify; default the host of the dial address. */
  serverName: hostName().optional(),
  allow: allowSchema.prefault({}),
  defaultToken: defaultTokenSchema,
});

export type WorldConfig = z.infer<typeof worldSchema>;
export type WorldAllowConfig = WorldConfig['allow'];
