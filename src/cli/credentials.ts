/**
 * The CLI's credentials file: what `login` keeps per issuer, which sign-in is
 * current, and the one way to change the file. Several CLI processes may run
 * at once (an agent's `search` beside a `whoami --access-token`), so every
 * change is a read-modify-write under a lock file: a refresh rotates the
 * refresh token, and the broker revokes the whole sign-in when a rotated-away
 * token comes back (RFC 9700 §4.14.2), so two refreshes must never both send
 * the same one.
 */
import { chmod, mkdir, readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { replaceFile } from '../files/durable-file.ts';
import { withLockFile } from '../files/lock-file.ts';
import { UsageError } from './usage-error.ts';

/** What `login` keeps per issuer. Tokens are secrets: the file is 0600 in a 0700 directory. */
export type StoredSignIn = {
  issuer: string;
  clientId: string;
  accessToken: string;
  refreshToken?: string;
  expiresAt: number;
  email?: string;
};
export type CredentialsFile = { current?: string; signIns: Record<string, StoredSignIn> };

/** The issuer of `npm start`'s broker, when nothing else names one. */
export const localIssuer = 'http://127.0.0.1:8080';

/**
 * How long a refresh (discovery and a token request, each bounded by
 * openid-client's 30 s timeout) may hold the lock before another process
 * takes it as abandoned. A killed holder is noticed at once by its pid.
 */
const lockStaleAfterMs = 120_000;

/** `$DEMARKUS_BROKER_CONFIG_DIR`, else `$XDG_CONFIG_HOME/demarkus-broker`, else `~/.config/demarkus-broker`. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.DEMARKUS_BROKER_CONFIG_DIR) return env.DEMARKUS_BROKER_CONFIG_DIR;
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'demarkus-broker');
}

export const credentialsPath = (env?: NodeJS.ProcessEnv) => join(configDir(env), 'credentials.json');

/** The file as it is now; for a change, use `changeCredentials`, which reads it again under the lock. */
async function readCredentials(env?: NodeJS.ProcessEnv): Promise<CredentialsFile> {
  const path = credentialsPath(env);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { signIns: {} };
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not the parser's message: it quotes the text around the fault, which here is a refresh token.
    throw new Error(
      `the credentials file ${path} is not valid JSON, so no sign-in can be read from it (its content is not shown: it holds tokens); delete it or move it aside, then run demarkus-broker login`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error(
      `the credentials file ${path} does not hold a JSON object, as demarkus-broker login writes it; delete it or move it aside, then run demarkus-broker login`,
    );
  const file = parsed as CredentialsFile;
  return typeof file.signIns === 'object' && file.signIns !== null ? file : { signIns: {} };
}

/**
 * The file, read at most once however often it is asked for: one command asks
 * it several things (which issuer is current, then that issuer's sign-in), and
 * answers from one reading agree. The first ask reads, so a command that never
 * needs the file (an issuer named by flag, then a failure) never reads it.
 */
export function credentialsOnce(env?: NodeJS.ProcessEnv): () => Promise<CredentialsFile> {
  let reading: Promise<CredentialsFile> | undefined;
  return () => {
    reading ??= readCredentials(env);
    return reading;
  };
}

/**
 * Runs `change` on the file read under the lock; the file is written when it
 * calls `save`. The lock is held until `change` returns, network calls
 * included, so a refresh and its save are one step for other processes.
 */
export async function changeCredentials<T>(
  change: (file: CredentialsFile, save: () => Promise<string>) => Promise<T>,
  env?: NodeJS.ProcessEnv,
): Promise<T> {
  await privateConfigDir(env);
  return withLockFile(
    `${credentialsPath(env)}.lock`,
    async () => {
      const file = await readCredentials(env);
      return change(file, () => writeCredentials(file, env));
    },
    { staleAfterMs: lockStaleAfterMs },
  );
}

/**
 * Makes the config directory and keeps it 0700. `mkdir` sets the mode only on
 * a directory it creates, so an existing one looser than that (made by hand,
 * or by an older version under a wide umask) is tightened, but only the
 * default directory, named for this tool, and only when the user owns it.
 * `DEMARKUS_BROKER_CONFIG_DIR` may name a directory the person shares with
 * other things (a project folder, ~/.config itself), whose mode is theirs to
 * choose; the file in it is 0600 either way.
 */
async function privateConfigDir(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const dir = configDir(env);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (env.DEMARKUS_BROKER_CONFIG_DIR) return;
  const info = await stat(dir);
  if (info.uid === process.getuid?.() && (info.mode & 0o077) !== 0) await chmod(dir, 0o700);
}

/** Keeps a new sign-in (login) and makes it the current one. */
export function saveSignIn(signIn: StoredSignIn, env?: NodeJS.ProcessEnv): Promise<string> {
  return changeCredentials(async (file, save) => {
    file.signIns[signIn.issuer] = signIn;
    file.current = signIn.issuer;
    return save();
  }, env);
}

/** Removes one issuer's sign-in (logout); the last one left becomes current. */
export function withoutSignIn(file: CredentialsFile, issuer: string): void {
  delete file.signIns[issuer];
  if (file.current === issuer) {
    const remaining = Object.keys(file.signIns);
    if (remaining.length > 0) file.current = remaining[remaining.length - 1];
    else delete file.current;
  }
}

async function writeCredentials(file: CredentialsFile, env?: NodeJS.ProcessEnv): Promise<string> {
  const path = credentialsPath(env);
  await replaceFile(path, Buffer.from(`${JSON.stringify(file, null, 2)}\n`), 0o600);
  return path;
}

/**
 * The issuer to talk to: the flag, `DEMARKUS_BROKER_ISSUER`, the current
 * sign-in, or the local stack. The one reader of that variable: an empty one
 * counts as unset, as shells usually mean it. `credentials` is read only when
 * neither names one; pass the command's `credentialsOnce` to share its reading.
 */
export async function resolveIssuer(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  credentials: () => Promise<CredentialsFile> = credentialsOnce(env),
): Promise<string> {
  const fromEnv = env.DEMARKUS_BROKER_ISSUER || undefined;
  const issuer = flag ?? fromEnv ?? (await credentials()).current ?? localIssuer;
  if (!URL.canParse(issuer)) {
    const source =
      flag !== undefined ? '--issuer' : fromEnv !== undefined ? 'DEMARKUS_BROKER_ISSUER' : 'the credentials file';
    throw new UsageError(`${source}: ${JSON.stringify(issuer)} is not a URL`);
  }
  return issuer.replace(/\/+$/, '');
}
