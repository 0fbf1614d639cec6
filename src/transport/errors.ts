/**
 * Transport failures, one class per outcome a caller acts on. Codes never change
 * once shipped; the library error that caused a failure stays on `cause`, and no
 * library message text is part of our own messages.
 */
import { CodedError } from '../errors/coded-error.ts';

export type MarkTransportErrorCode =
  | 'ERR_DIAL_FAILED'
  | 'ERR_TLS_HANDSHAKE'
  | 'ERR_TIMEOUT'
  | 'ERR_CONNECTION_LOST'
  | 'ERR_OUTCOME_UNKNOWN'
  | 'ERR_RESPONSE_TOO_LARGE'
  | 'ERR_ABORTED'
  | 'ERR_CLIENT_CLOSED'
  | 'ERR_LISTEN_FAILED'
  | 'ERR_TLS_CONFIG';

export class MarkTransportError extends CodedError<MarkTransportErrorCode> {}

/** The QUIC connection could not be established (unreachable, timed out, refused). */
export class DialFailedError extends MarkTransportError {
  readonly address: string;
  /** The handshake got no answer within the dial timeout (as opposed to failing at once). */
  readonly timedOut: boolean;

  constructor(address: string, options?: { cause?: unknown; timedOut?: boolean }) {
    super('ERR_DIAL_FAILED', `could not connect to ${address}`, options);
    this.address = address;
    this.timedOut = options?.timedOut ?? false;
  }
}

/** The TLS handshake failed: certificate not trusted, wrong name, or no common ALPN. */
export class TlsHandshakeError extends MarkTransportError {
  readonly serverName: string;

  constructor(serverName: string, options?: { cause?: unknown }) {
    super('ERR_TLS_HANDSHAKE', `TLS handshake with ${serverName} failed`, options);
    this.serverName = serverName;
  }
}

/** No complete response arrived within the request timeout. */
export class TimeoutError extends MarkTransportError {
  readonly timeoutMs: number;

  constructor(timeoutMs: number, options?: { cause?: unknown }) {
    super('ERR_TIMEOUT', `no response within ${timeoutMs} ms`, options);
    this.timeoutMs = timeoutMs;
  }
}

/** The connection or the request's stream failed before the response was complete. */
export class ConnectionLostError extends MarkTransportError {
  constructor(options?: { cause?: unknown }) {
    super('ERR_CONNECTION_LOST', 'connection lost before the response was complete', options);
  }
}

/**
 * A non-idempotent request failed after its first byte left: the server may or may
 * not have applied it. Mark client rule (Go `fetch.ErrOutcomeUnknown`): reconcile by
 * reading, never resend blindly.
 */
export class OutcomeUnknownError extends MarkTransportError {
  constructor(options?: { cause?: unknown }) {
    super('ERR_OUTCOME_UNKNOWN', 'request sent but outcome unknown', options);
  }
}

/** The response exceeded the client's read cap (Mark: 4 MiB, `MaxResponseLength`). */
export class ResponseTooLargeError extends MarkTransportError {
  readonly limitBytes: number;

  constructor(limitBytes: number) {
    super('ERR_RESPONSE_TOO_LARGE', `response exceeds ${limitBytes} bytes`);
    this.limitBytes = limitBytes;
  }
}

/** The caller's AbortSignal fired. */
export class RequestAbortedError extends MarkTransportError {
  constructor(options?: { cause?: unknown }) {
    super('ERR_ABORTED', 'request aborted', options);
  }
}

/** The client was closed; it accepts no more requests. */
export class ClientClosedError extends MarkTransportError {
  constructor() {
    super('ERR_CLIENT_CLOSED', 'transport client is closed');
  }
}

/** The listener could not bind its UDP socket or load its certificate. */
export class ListenFailedError extends MarkTransportError {
  readonly address: string;

  constructor(address: string, options?: { cause?: unknown }) {
    super('ERR_LISTEN_FAILED', `could not listen on ${address}`, options);
    this.address = address;
  }
}

/** A certificate or key is missing, unreadable, not PEM, or they do not match. */
export class TlsConfigError extends MarkTransportError {
  /** Which file is at fault, so a CLI can blame its flag; a key that does not match its certificate is the key's. */
  readonly part: 'certificate' | 'key';

  constructor(message: string, options: { part: 'certificate' | 'key'; cause?: unknown }) {
    super('ERR_TLS_CONFIG', message, options);
    this.part = options.part;
  }
}
