import { errorResponse, metadataOnlyResponse, type MarkResponse } from '../../protocol/response.ts';
import { Status } from '../../protocol/status.ts';
import type { Metadata } from '../../protocol/metadata.ts';

/** Small constructors so each verb reads as its list of outcomes. */

export function ok(metadata: Metadata, body: Uint8Array | string = new Uint8Array(0)): MarkResponse {
  return { status: Status.Ok, metadata, body: typeof body === 'string' ? Buffer.from(body) : body };
}

export function created(metadata: Metadata): MarkResponse {
  return metadataOnlyResponse(Status.Created, metadata);
}

export function notModified(): MarkResponse {
  return metadataOnlyResponse(Status.NotModified);
}

export const badRequest = (message: string) => errorResponse(Status.BadRequest, message);
export const notFound = (message: string) => errorResponse(Status.NotFound, message);
export const notPermitted = (message: string) => errorResponse(Status.NotPermitted, message);
export const serverError = (message: string) => errorResponse(Status.ServerError, message);
export const archivedResponse = (message: string) => errorResponse(Status.Archived, message);

/** What the handler says when something unexpected failed; the detail goes to the log only. */
export const internalError = () => serverError('internal error');
