import { maxBodyBytes } from '../../protocol/limits.ts';
import { hasVersionsSegment, isHashPath } from '../../protocol/paths.ts';
import type { MarkResponse } from '../../protocol/response.ts';
import type { RequestScope, WorldContext } from './context.ts';
import { goTempLinkFolderProblem, overlongNameProblem } from '../store/index.ts';
import { deniedResponse } from './read-auth.ts';
import { badRequest, notPermitted, serverError } from './respond.ts';

export type WriteAction = 'publishing' | 'archiving' | 'appending';

/**
 * The checks every write verb runs first, in the Go handler's order
 * (Go `server/internal/handler/handler.go` `serveWrite`): read-only, reserved hash path (before auth), size,
 * auth configured, token valid, token covers the path with `publish`. Ours after the hash path, also before
 * auth: a path through a `versions` folder would write into the store's history layout (Mark SPEC §9.3), which
 * Go accepts and then breaks on (docs/decisions.md, 2026-12-07); a folder named like a document's temp link in
 * the Go store (`<name>.md.tmp`), which would break the Go server's writes of that document; and a name longer
 * than the disk holds, which Go answers with a server error.
 * Returns null when the write may proceed.
 */
export function guardWrite(ctx: WorldContext, scope: RequestScope, action: WriteAction): MarkResponse | null {
  if (ctx.readOnly) return notPermitted('server is read-only');
  if (isHashPath(scope.path)) return badRequest('paths matching /sha256-<hash> are reserved');
  if (hasVersionsSegment(scope.path)) return badRequest(reservedHistoryFolderMessage);
  const reserved = goTempLinkFolderProblem(scope.path) ?? overlongNameProblem(scope.path);
  if (reserved !== null) return badRequest(reserved);
  if (scope.request.body.length > maxBodyBytes) return serverError('content exceeds size limit');
  if (scope.tokens === null) return notPermitted(`${action} requires auth configuration`);
  const outcome = scope.tokens.authorize(scope.token, scope.path, 'publish');
  return outcome === 'ok' ? null : deniedResponse(outcome);
}

const reservedHistoryFolderMessage =
  'the folder name "versions" is reserved for document history; use another folder name';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The document contract of PUBLISH and APPEND: a `.md` path and a UTF-8 body. */
export function checkDocumentContract(scope: RequestScope): MarkResponse | null {
  if (!scope.path.endsWith('.md')) return badRequest('publish path must end in .md');
  try {
    utf8.decode(scope.request.body);
  } catch {
    return badRequest('document body must be valid UTF-8 text');
  }
  return null;
}
