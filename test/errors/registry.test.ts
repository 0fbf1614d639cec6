/**
 * docs/errors.md is the registry of every code we raise: this test reads the
 * source (comments and type unions aside, a code must be used to count) and
 * the document, and fails on a code raised but undocumented, documented but
 * never raised, or an MCP allowlist that differs from the code's.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { oauthErrorStatus } from '../../src/broker/auth/oauth-error.ts';
import { agentVisibleCodes } from '../../src/broker/mcp/tool-result.ts';
import { Status } from '../../src/protocol/status.ts';

const root = resolve(import.meta.dirname, '../..');
const registry = readFileSync(join(root, 'docs/errors.md'), 'utf8');

/** Codes of Node (node:util parseArgs, import(), tls) that our source recognises but never raises. */
const foreign = new Set(['ERR_PARSE_ARGS', 'ERR_MODULE_NOT_FOUND', 'ERR_TLS_CERT_ALTNAME_INVALID']);

function* sourceFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (path.endsWith('.ts')) yield path;
  }
}

/** Every quoted `ERR_*` literal in code, outside comments and the member lines of type unions. */
function raisedCodes(): Set<string> {
  const codes = new Set<string>();
  for (const file of sourceFiles(join(root, 'src'))) {
    const code = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/(^|[^:'"`])\/\/[^\n]*/g, '$1');
    for (const line of code.split('\n')) {
      if (/^\s*\|\s*'ERR_/.test(line) || /\btype \w+ =\s*'ERR_/.test(line)) continue;
      for (const match of line.matchAll(/['"](ERR_[A-Z0-9_]+)['"]/g)) codes.add(match[1]!);
    }
  }
  for (const code of foreign) codes.delete(code);
  return codes;
}

/** The part of docs/errors.md under one `## ` heading. */
function section(title: string): string {
  const start = registry.indexOf(`\n## ${title}\n`);
  assert.ok(start >= 0, `docs/errors.md has a "${title}" section`);
  const end = registry.indexOf('\n## ', start + 1);
  return registry.slice(start, end < 0 ? undefined : end);
}

/** The backticked values in the first column of a section's tables. */
function firstColumn(text: string, pattern: RegExp): Set<string> {
  const values = new Set<string>();
  for (const match of text.matchAll(/^\| `([^`]+)` \|/gm)) if (pattern.test(match[1]!)) values.add(match[1]!);
  return values;
}

const sorted = (values: Iterable<string>) => [...values].sort();
const documented = new Set([...registry.matchAll(/`(ERR_[A-Z0-9_]+)`/g)].map((m) => m[1]!));

describe('error registry (docs/errors.md)', () => {
  it('documents every code the source raises', () => {
    const missing = sorted([...raisedCodes()].filter((code) => !documented.has(code)));
    assert.deepEqual(missing, [], `raised but not in docs/errors.md: ${missing.join(', ')}`);
  });

  it('lists no code the source never raises', () => {
    const raised = raisedCodes();
    const stale = sorted([...documented].filter((code) => !raised.has(code) && !/^ERR_OAUTH_/.test(code)));
    assert.deepEqual(stale, [], `in docs/errors.md but never raised: ${stale.join(', ')}`);
  });

  it('lists exactly the MCP allowlist of codes whose message reaches an agent', () => {
    assert.deepEqual(sorted(firstColumn(section('MCP tool errors'), /^ERR_/)), sorted(agentVisibleCodes));
  });

  it('lists every OAuth error value with its HTTP status', () => {
    const rows = [...section('HTTP: OAuth and bearer tokens').matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)];
    assert.deepEqual(Object.fromEntries(rows.map((m) => [m[1]!, Number(m[2])])), oauthErrorStatus);
  });

  it('lists every Mark status', () => {
    assert.deepEqual(sorted(firstColumn(section('Mark statuses'), /^[a-z-]+$/)), sorted(Object.values(Status)));
  });

  it('documents each code once', () => {
    const counts = new Map<string, number>();
    for (const match of registry.matchAll(/^\| `(ERR_[A-Z0-9_]+)` \|/gm))
      counts.set(match[1]!, (counts.get(match[1]!) ?? 0) + 1);
    assert.deepEqual(sorted([...counts].filter(([, n]) => n > 1).map(([code]) => code)), []);
  });
});

/** Every class in src: its parent as written (`errorWithCode(...)` read as CodedError) and its body. */
function errorClasses(): Map<string, { parent: string; body: string; file: string }> {
  const classes = new Map<string, { parent: string; body: string; file: string }>();
  for (const file of sourceFiles(join(root, 'src'))) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/^(?:export )?class (\w+)(?:<[^>{]*>)? extends (errorWithCode\(|[\w.]+)/gm)) {
      const end = text.indexOf('\n}', match.index);
      const parent = match[2] === 'errorWithCode(' ? 'CodedError' : match[2]!;
      classes.set(match[1]!, { parent, body: text.slice(match.index, end < 0 ? undefined : end), file });
    }
  }
  return classes;
}

describe('error classes', () => {
  it("name themselves: through CodedError's new.target.name, or their own name when they extend Error directly", () => {
    const classes = errorClasses();
    const unnamed: string[] = [];
    let checked = 0;
    for (const [name, { body, file }] of classes) {
      const chain: string[] = [];
      for (let at: string | undefined = name; at !== undefined && !chain.includes(at); at = classes.get(at)?.parent)
        chain.push(at);
      if (!/Error$/.test(chain.at(-1)!)) continue;
      checked += 1;
      const literal = /\bname = '(\w+)'/.exec(body)?.[1];
      const named = chain.includes('CodedError') ? literal === undefined || literal === name : literal === name;
      if (!named) unnamed.push(`${name} (${file.slice(root.length + 1)}, extends ${chain.slice(1).join(' < ')})`);
    }
    assert.ok(checked > 40, `found ${checked} error classes`);
    assert.deepEqual(unnamed, []);
  });
});
