/**
 * Kubernetes backend of the tokens sink (worlds/write-tokens/sink.ts): the
 * broker's entry in the world's tokens Secret (`worlds[].namespace` /
 * `worlds[].tokensSecret`, key `tokens.toml`), edited by the same pure edit as
 * the file backend (appended byte-exactly as the Go `FormatEntry`)
 * inside a read-modify-write with optimistic concurrency: a concurrent
 * edit (an operator adding a token) makes the API server answer 409, and the
 * edit is redone on the fresh text. An unchanged file is not written.
 *
 * The Secret belongs to the world: its chart's bootstrap Job creates it and
 * the broker may only get and update it, so a missing Secret is an error that
 * says what creates it.
 */
import type { CoreV1Api } from '@kubernetes/client-node';
import type { WorldDefinition } from '../worlds/world-definition.ts';
import type { WriteTokenRecord } from '../worlds/write-tokens/record.ts';
import { TokensSinkError, type EnsureOutcome, type WorldTokensSink } from '../worlds/write-tokens/sink.ts';
import { ensureTokenEntry, TokensTomlError } from '../worlds/write-tokens/tokens-toml-edit.ts';
import { KubernetesBackendError } from './errors.ts';
import { mutateSecret } from './mutate-secret.ts';

export const tokensSecretKey = 'tokens.toml';

export class SecretTokensSink implements WorldTokensSink {
  readonly #core: CoreV1Api;

  constructor(options: { core: CoreV1Api }) {
    this.#core = options.core;
  }

  async ensure(world: WorldDefinition, record: WriteTokenRecord): Promise<EnsureOutcome> {
    const { namespace, secret } = world.tokens;
    if (namespace === undefined || secret === undefined) {
      throw new TokensSinkError(
        world.name,
        `world ${JSON.stringify(world.name)} has no tokens Secret (worlds[].namespace and worlds[].tokensSecret)`,
      );
    }
    const object = `${namespace}/${secret}`;
    let outcome: EnsureOutcome = 'unchanged';
    try {
      await mutateSecret(
        this.#core,
        { namespace, name: secret, key: tokensSecretKey },
        (current) => {
          const edit = ensureTokenEntry(current?.toString('utf8') ?? '', record);
          outcome = edit.outcome;
          return edit.outcome === 'unchanged' ? null : Buffer.from(edit.text, 'utf8');
        },
        { createIfMissing: false },
      );
    } catch (error) {
      throw sinkError(world.name, object, error);
    }
    return outcome;
  }
}

function sinkError(world: string, object: string, error: unknown): TokensSinkError {
  if (error instanceof TokensTomlError)
    return new TokensSinkError(world, `tokens secret ${object}: ${error.message}; left unchanged`, { cause: error });
  if (error instanceof KubernetesBackendError && error.code === 'ERR_K8S_NOT_FOUND') {
    return new TokensSinkError(
      world,
      `kubernetes: tokens secret ${object} of world ${JSON.stringify(world)} not found (the world chart's tokens bootstrap Job creates it)`,
      { cause: error },
    );
  }
  if (error instanceof KubernetesBackendError) return new TokensSinkError(world, error.message, { cause: error });
  return new TokensSinkError(world, `kubernetes: tokens secret ${object}: unexpected failure`, { cause: error });
}
