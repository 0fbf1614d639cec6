import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

const helpOption = { help: { type: 'boolean', short: 'h' } } as const;

type Parsed<O extends ParseArgsOptionsConfig, P extends boolean> = ReturnType<
  typeof parseArgs<{ args: string[]; strict: true; allowPositionals: P; options: O & typeof helpOption }>
>;

/**
 * A command's arguments, parsed strictly (an unknown flag is a usage error,
 * exit 2, in main.ts), with `--help`/`-h` on every command: null when help
 * was asked for and printed, and the command has nothing more to do.
 * Positionals are refused unless `positionals` is true.
 */
export function commandArgs<const O extends ParseArgsOptionsConfig, P extends boolean = false>(
  args: string[],
  options: O,
  help: string,
  { positionals, out = (text) => console.log(text) }: { positionals?: P; out?: (text: string) => void } = {},
): Parsed<O, P> | null {
  const parsed = parseArgs({
    args,
    strict: true,
    allowPositionals: (positionals ?? false) as P,
    options: { ...options, ...helpOption },
  });
  if ((parsed.values as { help?: boolean }).help) {
    out(help);
    return null;
  }
  return parsed;
}
