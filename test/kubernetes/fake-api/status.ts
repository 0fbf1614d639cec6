/** `metav1.Status` bodies as the API server sends them with a failed call. */
export type StatusBody = {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure';
  message: string;
  reason: string;
  code: number;
  details?: Record<string, unknown>;
};

const reasons: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Expired',
  422: 'Invalid',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

export function statusBody(
  code: number,
  message: string,
  reason = reasons[code] ?? 'Unknown',
  details?: Record<string, unknown>,
): StatusBody {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
    ...(details ? { details } : {}),
  };
}

export class ApiError extends Error {
  readonly body: StatusBody;
  constructor(body: StatusBody) {
    super(body.message);
    this.body = body;
  }
}

export const notFound = (resource: string, name: string) =>
  new ApiError(statusBody(404, `${resource} "${name}" not found`, 'NotFound', { name, kind: resource }));
export const alreadyExists = (resource: string, name: string) =>
  new ApiError(statusBody(409, `${resource} "${name}" already exists`, 'AlreadyExists', { name, kind: resource }));
export const conflict = (resource: string, name: string) =>
  new ApiError(
    statusBody(
      409,
      `Operation cannot be fulfilled on ${resource} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      'Conflict',
      { name, kind: resource },
    ),
  );
export const badRequest = (message: string) => new ApiError(statusBody(400, message));
export const invalid = (message: string) => new ApiError(statusBody(422, message));
