/**
 * The world chart's one-time tokens bootstrap (run by a Helm hook Job in our
 * own image): create the world's tokens Secret (`tokens.toml`, hashes only)
 * and, when asked, a Secret with the raw admin token, then never touch them
 * again. After this the Secret belongs to the running system: the broker
 * appends its entry, operators add theirs, and chart upgrades leave it alone.
 *
 * Crash-safe and idempotent: an existing tokens Secret ends the run; an
 * existing values Secret (a run that died between the two creates) supplies
 * the raw token, so the two never disagree.
 */
import type { CoreV1Api } from '@kubernetes/client-node';
import { generateToken, hashToken } from '../../protocol/token.ts';
import { apiFailure, apiStatus } from './errors.ts';
import { boundedCall, callBound } from './bounded-call.ts';
import { readSecret } from './mutate-secret.ts';
import { secretValue } from './secret-data.ts';
import { formatTokenEntry } from '../../protocol/tokens-entry.ts';
import { tokensSecretKey } from './secret-tokens-sink.ts';

export const adminTokenKey = 'token';

export type WorldTokensBootstrap = {
  core: CoreV1Api;
  namespace: string;
  world: string;
  tokensSecret: string;
  /** Secret to hold the raw admin token (key `token`); `null` keeps it nowhere (then pass `rawToken`). */
  valuesSecret: string | null;
  label: string;
  paths: readonly string[];
  operations: readonly string[];
  /** The admin token to grant; minted when absent. */
  rawToken?: string;
  labels?: Record<string, string>;
};

export type BootstrapResult = 'created' | 'already-present';

export async function bootstrapWorldTokens(run: WorldTokensBootstrap): Promise<BootstrapResult> {
  if ((await readSecret(run.core, { namespace: run.namespace, name: run.tokensSecret })) !== null)
    return 'already-present';
  const rawToken = await adminToken(run);
  const header = `# tokens.toml of world ${JSON.stringify(run.world)}, written once by the chart's bootstrap Job.\n# Hashes only. The broker appends its own [tokens.broker-write-${run.world}] entry.\n`;
  const toml =
    header + formatTokenEntry(run.label, { hash: hashToken(rawToken), paths: run.paths, operations: run.operations });
  const created = await createOnce(run, run.tokensSecret, { [tokensSecretKey]: toml });
  return created ? 'created' : 'already-present';
}

/** The values Secret's token when a previous run stored one; otherwise the given or a new token, stored first. */
async function adminToken(run: WorldTokensBootstrap): Promise<string> {
  if (run.valuesSecret === null) {
    if (run.rawToken === undefined) throw new RangeError('bootstrap without a values Secret needs the admin token');
    return run.rawToken;
  }
  const stored = await readSecret(run.core, { namespace: run.namespace, name: run.valuesSecret });
  const existing = stored === null ? null : secretValue(stored, adminTokenKey);
  if (existing !== null) return existing.toString('utf8');
  const rawToken = run.rawToken ?? generateToken();
  if (!(await createOnce(run, run.valuesSecret, { [adminTokenKey]: rawToken }))) return adminToken(run);
  return rawToken;
}

/** `false` when the Secret appeared meanwhile (409 AlreadyExists). */
async function createOnce(run: WorldTokensBootstrap, name: string, values: Record<string, string>): Promise<boolean> {
  const data = Object.fromEntries(
    Object.entries(values).map(([key, value]) => [key, Buffer.from(value, 'utf8').toString('base64')]),
  );
  try {
    const body = {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: { name, namespace: run.namespace, labels: run.labels ?? {} },
      data,
    };
    await boundedCall(callBound(), (call) => run.core.createNamespacedSecret({ namespace: run.namespace, body }, call));
    return true;
  } catch (error) {
    if (apiStatus(error) === 409) return false;
    throw apiFailure(`${run.namespace}/${name}`, 'create secret', error);
  }
}
