/**
 * Secret `data` values travel base64-encoded (Kubernetes API, core/v1 Secret).
 * The backends work with bytes; these two helpers are the only place that
 * encodes or decodes them.
 */
import type { V1Secret } from '@kubernetes/client-node';

export function secretValue(secret: V1Secret, key: string): Buffer | null {
  const encoded = secret.data?.[key];
  if (encoded !== undefined) return Buffer.from(encoded, 'base64');
  // stringData is write-only on a real server; a fake or a dry run may echo it.
  const plain = secret.stringData?.[key];
  return plain === undefined ? null : Buffer.from(plain, 'utf8');
}

export function withSecretValue(secret: V1Secret, key: string, value: Uint8Array): V1Secret {
  return { ...secret, data: { ...secret.data, [key]: Buffer.from(value).toString('base64') } };
}
