/**
 * The checks the real API server makes on the objects our backends write, so
 * a backend that sends something a cluster would refuse fails here too.
 */
import { badRequest, invalid } from './status.ts';
import type { KubeObject } from './object-store.ts';

/** metav1.MicroTime is parsed with `2006-01-02T15:04:05.000000Z07:00`: exactly six fractional digits. */
const microTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;
const base64 = /^[A-Za-z0-9+/]*={0,2}$/;
const dnsSubdomain = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function validateObject(resource: string, object: KubeObject, kind: string): void {
  if (typeof object.metadata?.name !== 'string' || !dnsSubdomain.test(object.metadata.name)) {
    throw badRequest(`${kind} "${String(object.metadata?.name)}" is invalid: metadata.name: Invalid value`);
  }
  if (resource === 'secrets') validateSecret(object);
  if (resource === 'leases') validateLease(object);
}

function validateSecret(object: KubeObject): void {
  const data = (object.data ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(data)) {
    if (typeof value !== 'string' || value.length % 4 !== 0 || !base64.test(value)) {
      throw badRequest(
        `Secret in version "v1" cannot be handled as a Secret: illegal base64 data at key ${JSON.stringify(key)}`,
      );
    }
  }
  if (object.stringData !== undefined)
    throw badRequest('the fake API server stores data only: send base64 data, not stringData');
  // ValidateSecret (k8s.io/kubernetes pkg/apis/core/validation): the decoded values together, at most MaxSecretSize.
  const total = Object.values(data).reduce<number>(
    (sum, value) => sum + Buffer.from(value as string, 'base64').length,
    0,
  );
  if (total > maxSecretBytes)
    throw invalid(
      `Secret "${object.metadata.name}" is invalid: data: Too long: must have at most ${maxSecretBytes} bytes`,
    );
}

/** `MaxSecretSize`, 1 MiB. */
export const maxSecretBytes = 1024 * 1024;

function validateLease(object: KubeObject): void {
  const spec = (object.spec ?? {}) as Record<string, unknown>;
  for (const field of ['acquireTime', 'renewTime']) {
    const value = spec[field];
    if (value !== undefined && (typeof value !== 'string' || !microTime.test(value))) {
      throw badRequest(
        `Lease in version "v1" cannot be handled as a Lease: parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05.000000Z07:00": cannot parse`,
      );
    }
  }
  const duration = spec.leaseDurationSeconds;
  if (duration !== undefined && (!Number.isInteger(duration) || (duration as number) < 1)) {
    throw badRequest('Lease.coordination.k8s.io is invalid: spec.leaseDurationSeconds: must be greater than 0');
  }
}
