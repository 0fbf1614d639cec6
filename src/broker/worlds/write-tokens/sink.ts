/**
 * How a write token reaches a world: its hash must be in the world's
 * tokens.toml under the record's label. The file backend edits the world's
 * `tokensFile`; a Kubernetes backend will edit the world's tokens Secret.
 *
 * Contract: `ensure` is idempotent and converges (Go broker `syncWorldHash`):
 * - label present with the record's hash, paths and operations → nothing is
 *   written (`unchanged`);
 * - label present with anything else (another hash, other paths, more
 *   operations) → that entry is replaced (`replaced`), since the world
 *   enforces what the entry says;
 * - label absent → the entry text is appended byte-exactly (`appended`);
 * - other entries, comments and layout are kept; a tokens file that does not
 *   parse is left alone and reported (TokensSinkError), never overwritten.
 */
import type { WorldDefinition } from '../world-definition.ts';
import type { WriteTokenRecord } from './record.ts';
import { CodedError } from '../../../errors/coded-error.ts';

export type EnsureOutcome = 'unchanged' | 'replaced' | 'appended';

export interface WorldTokensSink {
  ensure(world: WorldDefinition, record: WriteTokenRecord): Promise<EnsureOutcome>;
}

export class TokensSinkError extends CodedError<'ERR_TOKENS_SINK'> {
  readonly world: string;
  constructor(world: string, message: string, options?: { cause?: unknown }) {
    super('ERR_TOKENS_SINK', message, options);
    this.world = world;
  }
}
