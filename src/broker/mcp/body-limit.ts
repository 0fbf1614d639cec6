import { bodyLimitText } from '../../protocol/limits.ts';
import { countText } from '../count-text.ts';

/** What a refusal names and what it tells the caller to do instead. */
export type OversizeWording = { what: string; advice: string };

/** mark_publish: a body the caller wrote. */
export const documentOversize: OversizeWording = {
  what: 'body',
  advice: 'split it into several documents and link them from one another (or from an index document)',
};

/**
 * mark_append: the appended text alone. The world counts the limit on the document with the text
 * added (Go `storefmt.JoinContent`, src/world/store/doc-append.ts), which the broker does not know
 * without a read; text over the limit on its own can never fit, so it is refused here and the rest
 * is the world's to answer.
 */
export const fragmentOversize: OversizeWording = {
  what: 'text to append',
  advice: 'publish it as several new documents (mark_publish) and link them from this one',
};

/**
 * The refusal of a write whose body cannot be a Mark document, made before the world is asked: the
 * world would answer only `server-error` "could not read request", the Go reference's answer to a
 * request over its body limit (Go `handler.writeParseError`, src/world/handler/serve.ts), which
 * tells the caller neither cause nor cure.
 */
export function oversizeRefusal(verb: string, bytes: number, wording: OversizeWording): string {
  return `${verb} refused: the ${wording.what} is ${countText(bytes)} bytes; a Mark document holds at most ${bodyLimitText}, so nothing was sent: ${wording.advice}`;
}

/** `storefmt.ErrSizeLimit` as the world answers it (src/world/handler/store-errors.ts): APPEND's joined body passed the limit. */
const worldSizeLimitAnswer = 'content exceeds size limit';

/**
 * What mark_append adds after the world's own answer when the document with the text added would
 * pass the limit: the world's words name neither the limit nor what to do.
 */
export function appendOverLimitNote(status: string, body: string): string {
  if (status !== 'server-error' || !body.includes(worldSizeLimitAnswer)) return '';
  return `\nNothing was appended: the document with this text added would be over ${bodyLimitText}, the most a Mark document holds. Publish the text as a new document (mark_publish) and link it from this one.\n`;
}
