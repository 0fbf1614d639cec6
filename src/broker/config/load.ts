/**
 * Reading the broker config: YAML text → plain tree → environment overrides →
 * schema. Every failure is a ConfigError with a one-line message; YAML errors
 * give the position and a reason but never the offending text, which may be a
 * secret (yaml-syntax.ts).
 */
import { readFile } from 'node:fs/promises';
import { brokerConfigSchema, type BrokerConfig } from './broker-config.ts';
import { applyEnvOverrides, isPlainObject, type Env } from './env.ts';
import { ConfigError } from './errors.ts';
import { configErrorFromIssues, genericMessage } from './issues.ts';
import { decodeYamlText } from './yaml-syntax.ts';

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
  const value = decodeYamlText(text);
  // An empty file is an empty map: the schema then names the first missing key.
  if (value === null || value === undefined) return {};
  if (!isPlainObject(value))
    throw new ConfigError('ERR_CONFIG_SYNTAX', 'config: the file must hold a YAML map of settings');
  return dropUnset(value) as Record<string, unknown>;
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
