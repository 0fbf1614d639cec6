/**
 * The config file's YAML text as a plain tree, with every failure a
 * ConfigError('ERR_CONFIG_SYNTAX') whose reason is chosen here, never the
 * yaml library's own message for codes whose message quotes the source: an
 * unresolved alias names the alias (`clientSecret: *s3cret` read as an alias
 * would print `s3cret`), and block scalar headers, tags, escapes and ordered
 * map keys are quoted likewise (yaml `dist/compose/*.js`, `doc/directives.js`).
 */
import { isAlias, LineCounter, parseDocument, visit, type Document, type ErrorCode, type YAMLError } from 'yaml';
import { ConfigError } from './errors.ts';

/** Alias expansions allowed while building the tree; more is an alias bomb. */
const maxAliasCount = 100;

/**
 * Codes whose every message in the yaml library is fixed text (checked against
 * yaml 2.9's sources), shown as the library words them; any other code gets
 * the reason in `ownReasons`, or a general one.
 */
const fixedTextCodes: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'ALIAS_PROPS',
  'BAD_ALIAS',
  'BAD_INDENT',
  'BLOCK_AS_IMPLICIT_KEY',
  'BLOCK_IN_FLOW',
  'DUPLICATE_KEY',
  'KEY_OVER_1024_CHARS',
  'MISSING_CHAR',
  'MULTILINE_IMPLICIT_KEY',
  'MULTIPLE_ANCHORS',
  'MULTIPLE_DOCS',
  'MULTIPLE_TAGS',
  'TAB_AS_INDENT',
]);

const ownReasons: Partial<Record<ErrorCode, string>> = {
  BAD_DQ_ESCAPE: 'invalid escape sequence in a double-quoted string; single quotes keep `\\` as written',
  BAD_SCALAR_START: 'a value cannot start with this character; quote it',
  BAD_DIRECTIVE: 'a line starting with `%` is a YAML directive; quote the value',
  TAG_RESOLVE_FAILED: 'a value starting with `!` is a YAML tag; quote it',
  BAD_COLLECTION_TYPE: 'a value starting with `!` is a YAML tag; quote it',
  BAD_PROP_ORDER: 'a value starting with `&` or `!` is a YAML anchor or tag; quote it',
  UNEXPECTED_TOKEN: 'unexpected text here (quote a value that starts with `|`, `>`, `[` or `{`)',
};

const aliasReason = 'a value starting with `*` is a YAML alias; quote it';

export function decodeYamlText(text: string): unknown {
  const lineCounter = new LineCounter();
  // prettyErrors off: the pretty form quotes the source line.
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  // Warnings fail too: an unknown tag (`clientSecret: !s3cret x`) would otherwise load as the text after it.
  const error = document.errors[0] ?? document.warnings[0];
  if (error !== undefined) throw syntaxError(lineCounter, error.pos[0], reasonOf(error));
  const unresolved = firstUnresolvedAlias(document);
  if (unresolved !== undefined) throw syntaxError(lineCounter, unresolved, aliasReason);
  try {
    return document.toJS({ maxAliasCount });
  } catch (cause) {
    // Only the alias-count check is left to throw here (yaml `nodes/Alias.js`); its text names no value,
    // but the reason is still ours, as every message of this module.
    throw new ConfigError(
      'ERR_CONFIG_SYNTAX',
      `config: invalid YAML: aliases expand to too many nodes (at most ${maxAliasCount})`,
      { cause },
    );
  }
}

function reasonOf(error: YAMLError): string {
  if (fixedTextCodes.has(error.code)) return firstSentence(error.message);
  return ownReasons[error.code] ?? 'not valid YAML here';
}

function firstSentence(message: string): string {
  return message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}

/** The offset of the first alias with no anchor before it, which `toJS` would refuse quoting its name. */
function firstUnresolvedAlias(document: Document): number | undefined {
  let offset: number | undefined;
  visit(document, {
    Alias(_key, node) {
      if (isAlias(node) && node.resolve(document) === undefined) {
        offset = node.range?.[0] ?? 0;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return offset;
}

function syntaxError(lineCounter: LineCounter, offset: number, reason: string): ConfigError {
  const { line, col } = lineCounter.linePos(offset);
  return new ConfigError('ERR_CONFIG_SYNTAX', `config: invalid YAML at line ${line}, column ${col}: ${reason}`);
}
