/**
 * The one base of our own errors: a stable `code` that callers `switch` on and
 * that docs/errors.md lists, and a `name` equal to the class name so logs and
 * stack traces say which error it is. `message` is private detail for logs;
 * what a caller outside the process reads is chosen by the surface that
 * answers it (see `publicMessage` in src/broker/mcp/tool-result.ts), never
 * taken from `message` unless the code is on that surface's allowlist.
 */
export class CodedError<Code extends string = string> extends Error {
  readonly code: Code;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * A class of errors that always carry the same code, constructed with just a
 * message: `class MarkUrlError extends errorWithCode('ERR_INVALID_MARK_URL') {}`.
 */
export function errorWithCode<const Code extends string>(code: Code) {
  return class extends CodedError<Code> {
    constructor(message: string, options?: { cause?: unknown }) {
      super(code, message, options);
    }
  };
}

/** The code of one of our own errors, or undefined for anything else (library errors, bugs). */
export function codeOf(error: unknown): string | undefined {
  return error instanceof CodedError ? error.code : undefined;
}
