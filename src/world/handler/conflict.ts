import type { MarkResponse } from '../../protocol/response.ts';
import { Status } from '../../protocol/status.ts';

const stale = 'The document has been modified since you last fetched it.';

/**
 * The `conflict` answer (Mark SPEC §6.4, §6.6): `your-version` is what the
 * client sent, `server-version` the current one. The advice differs: a
 * create-only PUBLISH is told the document exists; an APPEND is told to check
 * whether its append already landed before retrying, since APPEND is not idempotent.
 */
export function conflictResponse(kind: 'publish' | 'append', expected: number, server: number): MarkResponse {
  let body: string;
  if (kind === 'publish' && expected === 0) {
    body = `# Version Conflict\n\nA document already exists at this path (version ${server}).\n\nFetch the current version and publish with the correct expected-version to update it.\n`;
  } else {
    const advice =
      kind === 'append'
        ? 'Fetch the latest version and verify whether your append was applied before retrying.'
        : 'Please fetch the latest version and reapply your edits.';
    body = `# Version Conflict\n\n${stale}\n\nYour version: ${expected}\nServer version: ${server}\n\n${advice}\n`;
  }
  return {
    status: Status.Conflict,
    metadata: { 'your-version': String(expected), 'server-version': String(server) },
    body: Buffer.from(body),
  };
}
