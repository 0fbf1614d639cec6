/**
 * Reading the broker config: YAML text → plain tree → environment overrides →
 * schema. Every failure is a ConfigError with a one-line message; YAML errors
 * give the position and the parser's reason but never the offending line,
 * which may hold a secret.
 */
import { readFile } from 'node:fs/promises';
import { LineCounter, parseDocument } from 'yaml';
import { brokerConfigSchema, type BrokerConfig } from './broker-config.ts';
import { applyEnvOverrides, isPlainObject, type Env } from './env.ts';
import { ConfigError } from './errors.ts';
import { configErrorFromIssues, genericMessage } from './issues.ts';

export async function loadBrokerConfig(path: string, env: Env = process.env): Promise<BrokerConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    const reason = (cause as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError('ERR_CONFIG_READ', `config: cannot read ${JSON.stringify(path)} (${reason})`, { cause });
  }
  return parseBrokerConfig(text, env);
}

export function parseBrokerConfig(text: string, env: Env = process.env): BrokerConfig {
  const document = decodeYaml(text);
  const envSources = applyEnvOverrides(document, env);
  const result = brokerConfigSchema.safeParse(document, { error: genericMessage });
  if (!result.success) throw configErrorFromIssues(result.error.issues, envSources);
  return result.data;
}

function decodeYaml(text: string): Record<string, unknown> {
  const lineCounter = new LineCounter();
  // prettyErrors off: the pretty form quotes the source line.
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const error = document.errors[0];
  if (error !== undefined) {
    const { line, col } = lineCounter.linePos(error.pos[0]);
    throw new ConfigError(
      'ERR_CONFIG_SYNTAX',
      `config: invalid YAML at line ${line}, column ${col}: ${firstSentence(error.message)}`,
    );
  }
  const value: unknown = document.toJS({ maxAliasCount: 100 });
  // An empty file is an empty map: the schema then names the first missing key.
  if (value === null || value === undefined) return {};
  if (!isPlainObject(value))
    throw new ConfigError('ERR_CONFIG_SYNTAX', 'config: the file must hold a YAML map of settings');
  return dropUnset(value) as Record<string, unknown>;
}

function firstSentence(message: string): string {
  return message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}

/**
 * `key:` (null) and `key: ""` mean "not set", as Go's decoder leaves such
 * fields at their zero value; the Go chart renders blank optional keys this
 * way (`publicURL: ""`). Entries of lists are kept, so an empty allowlist
 * entry is still reported.
 */
function dropUnset(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (isPlainObject(item) ? dropUnset(item) : item));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (child === null || child === '') continue;
    out[key] = dropUnset(child);
  }
  return out;
}
