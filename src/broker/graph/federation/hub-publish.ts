import { maxBodyBytes } from '../../../protocol/limits.ts';
import { Status } from '../../../protocol/status.ts';
import type { Identity } from '../../identity.ts';
import type { WorldGateway } from '../../worlds/gateway.ts';
import { outputFingerprint } from './crawl-record.ts';

/**
 * Publishing one hub output. The crawl is the only writer of these documents
 * and rewrites them whole, so PUBLISH goes without `expected-version` (as the
 * reference agent does), with `retention` so history stays bounded. An
 * output whose content (timestamp aside) equals what the hub holds is not
 * written again; one over the body limit is reported, never sent.
 */
export type PublishOutcome = {
  path: string;
  outcome: 'published' | 'unchanged' | 'too-large' | 'withheld' | 'failed';
  version?: number;
  detail?: string;
};

export type HubWriter = {
  gateway: WorldGateway;
  hub: string;
  identity: Identity;
  retention: number;
  /** Fingerprints of the outputs as the hub holds them; updated on success. */
  outputs: Map<string, string>;
  signal?: AbortSignal;
};

/** `tooLarge` words the refusal of a body over the limit when the caller can say more than its size. */
export async function publishOutput(
  writer: HubWriter,
  path: string,
  body: string,
  tooLarge: (bytes: number) => string = (bytes) => `${bytes} bytes exceeds the ${maxBodyBytes}-byte body limit`,
): Promise<PublishOutcome> {
  const fingerprint = outputFingerprint(body);
  if (writer.outputs.get(path) === fingerprint) return { path, outcome: 'unchanged' };
  const bytes = Buffer.byteLength(body);
  if (bytes > maxBodyBytes) return { path, outcome: 'too-large', detail: tooLarge(bytes) };
  const metadata: Record<string, string> = { agent: writer.identity.email };
  if (writer.retention > 0) metadata.retention = String(writer.retention);
  try {
    const response = await writer.gateway.write(writer.hub, writer.identity, {
      verb: 'PUBLISH',
      path,
      metadata,
      body,
      ...(writer.signal ? { signal: writer.signal } : {}),
    });
    if (response.status !== Status.Ok && response.status !== Status.Created)
      return { path, outcome: 'failed', detail: `status ${response.status}` };
    writer.outputs.set(path, fingerprint);
    const version = Number(response.metadata.version);
    return { path, outcome: 'published', ...(Number.isSafeInteger(version) ? { version } : {}) };
  } catch (error) {
    return { path, outcome: 'failed', detail: error instanceof Error ? error.message : String(error) };
  }
}
