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
