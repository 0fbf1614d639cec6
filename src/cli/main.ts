import { UsageError } from './usage-error.ts';
import { packageVersion } from './version.ts';

const usage = `demarkus-broker <command> [options]

Commands:
  dev                      run the local stack (worlds and broker under ./data) — what npm start runs
  broker                   run the broker (MCP gateway and management listener)
  token --email EMAIL      mint a development broker token with the configured signing key
  login                    sign in to a broker with the device flow and keep the tokens
  whoami                   show who you are signed in as (refreshing the token when due)
  logout                   revoke and forget the tokens login kept
  crawl                    federation crawl: publish /graph.md and hash indexes to the hub, once
  world                    run a Mark Protocol world server
  world token              mint a world token and print its tokens.toml entry
  mark <verb> <mark-url>   send one Mark request and print the answer
  search <query>           full-text search through the broker, or --direct against one world
  doctor                   report duplicates, policy breaks, untagged docs, broken links and orphans

Run "demarkus-broker <command> --help" for a command's options; "demarkus-broker --version" prints the version.`;

type Command = (args: string[]) => Promise<number>;

// Each command's module is loaded when it is chosen: loading them all cost every launch,
// `--help` included, 2-3 s of CPU for modules the command never runs (the broker, the world
// server, the MCP SDK, ...).
const commands: Record<string, Command> = {
  dev: async (args) => (await import('./dev-command.ts')).runDevCommand(args),
  broker: async (args) => (await import('./broker-command.ts')).runBrokerCommand(args),
  token: async (args) => (await import('./token-command.ts')).runTokenCommand(args),
  login: async (args) => (await import('./login-command.ts')).runLoginCommand(args),
  whoami: async (args) => (await import('./whoami-command.ts')).runWhoamiCommand(args),
  logout: async (args) => (await import('./logout-command.ts')).runLogoutCommand(args),
  crawl: async (args) => (await import('./crawl-command.ts')).runCrawlCommand(args),
  world: async (args) =>
    args[0] === 'token'
      ? (await import('./world-token-command.ts')).runWorldTokenCommand(args.slice(1))
      : (await import('./world-command.ts')).runWorldCommand(args),
  mark: async (args) => (await import('./mark-command.ts')).runMarkCommand(args),
  search: async (args) => (await import('./search-command.ts')).runSearchCommand(args),
  doctor: async (args) => (await import('./doctor-command.ts')).runDoctorCommand(args),
};

/** The CLI entry: returns the process exit code (0 ok, 1 failure, 2 usage; `mark` adds 3), as docs/errors.md lists. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    // No command is a usage error: the list goes to stderr, so `demarkus-broker > file` does not swallow it.
    console.error(usage);
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    console.log(usage);
    return 0;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    console.log(`demarkus-broker ${await packageVersion()}`);
    return 0;
  }
  const command = commands[name];
  if (command === undefined) {
    console.error(`demarkus-broker: unknown command "${name}"\n\n${usage}`);
    return 2;
  }
  // `world token` is its own command: its messages carry both words.
  const shown = name === 'world' && rest[0] === 'token' ? 'world token' : name;
  try {
    return await command(rest);
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      // node:util words some refusals over three lines ("... is ambiguous.\nDid you forget ..."): one line here.
      const line = (error as Error).message.replace(/\s*\n\s*/g, ' ');
      console.error(`demarkus-broker ${shown}: ${line}\nRun \`demarkus-broker ${shown} --help\`.`);
      return 2;
    }
    console.error(`demarkus-broker ${shown}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

/** node:util parseArgs throws TypeErrors with ERR_PARSE_ARGS_* codes for bad flags. */
function isParseArgsError(error: unknown): boolean {
  const code: unknown = (error as { code?: unknown } | null)?.code;
  return error instanceof TypeError && typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2));
}
