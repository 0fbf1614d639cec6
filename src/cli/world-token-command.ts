import { mintTokenEntry, TokensFileError, type MintedToken } from '../world/auth/index.ts';
import { parseRfc3339 } from '../protocol/time.ts';
import { UsageError } from './usage-error.ts';
import { commandArgs } from './command-args.ts';

const help = `demarkus-broker world token --label NAME --paths GLOB[,GLOB...] --ops publish[,read] [--expires RFC3339]

Mints a world token. Prints the raw token once (store it where the writer keeps
secrets; it is not recoverable) and the tokens.toml entry to add to the world.
The world reloads tokens.toml on change, without a restart.

  --label NAME     table name in tokens.toml, shown in audit logs ([a-zA-Z0-9_-]+)
  --paths GLOBS    comma-separated path globs, e.g. /docs/**,/notes/*
  --ops OPS        publish (PUBLISH, APPEND, ARCHIVE) and/or read (read-protected paths)
  --expires TIME   optional RFC 3339 expiry, e.g. 2027-01-01T00:00:00Z`;

export async function runWorldTokenCommand(args: string[]): Promise<number> {
  const parsed = commandArgs(
    args,
    {
      label: { type: 'string' },
      paths: { type: 'string' },
      ops: { type: 'string' },
      expires: { type: 'string' },
    },
    help,
  );
  if (parsed === null) return 0;
  const { values } = parsed;
  const label = values.label ?? '';
  if (!/^[A-Za-z0-9_-]+$/.test(label)) throw new UsageError('--label is required: letters, digits, "_" and "-"');
  const paths = splitList(values.paths, '--paths');
  const ops = splitList(values.ops, '--ops');
  for (const op of ops)
    if (op !== 'publish' && op !== 'read') throw new UsageError(`unknown operation "${op}": use publish and/or read`);
  if (values.expires !== undefined && parseRfc3339(values.expires) === null)
    throw new UsageError(`--expires must be RFC 3339, got "${values.expires}"`);
  let minted: MintedToken;
  try {
    minted = mintTokenEntry({ label, paths, operations: ops, ...(values.expires ? { expires: values.expires } : {}) });
  } catch (error) {
    if (error instanceof TokensFileError) throw new UsageError(error.message);
    throw error;
  }
  process.stdout.write(`token: ${minted.rawToken}\n\n# add to tokens.toml:\n${minted.tomlEntry}`);
  return 0;
}

function splitList(text: string | undefined, flag: string): string[] {
  const items = (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length === 0) throw new UsageError(`${flag} is required`);
  return items;
}
