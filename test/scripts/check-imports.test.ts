import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { importProblems } from '../../scripts/check-imports.ts';

/** A throwaway `src` tree: path → source. */
function tree(files: Record<string, string>): { src: string; [Symbol.dispose](): void } {
  const root = mkdtempSync(join(tmpdir(), 'check-imports-'));
  const src = join(root, 'src');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(src, path)), { recursive: true });
    writeFileSync(join(src, path), text);
  }
  return { src, [Symbol.dispose]: () => rmSync(root, { recursive: true, force: true }) };
}

describe('import direction check', () => {
  it('passes the real tree', () => {
    assert.deepEqual(importProblems(join(import.meta.dirname, '../../src')), []);
  });

  it('rejects a broker folder importing a sibling it may not depend on', () => {
    using fixture = tree({
      'broker/mcp/tool.ts': 'export const tool = 1;\n',
      'broker/graph/store.ts': "import { tool } from '../mcp/tool.ts';\nexport const x = tool;\n",
    });
    assert.deepEqual(importProblems(fixture.src), [
      'src/broker/graph/store.ts imports src/broker/mcp/tool.ts: broker/graph must not depend on broker/mcp',
    ]);
  });

  it('rejects a folder importing the broker wiring, and accepts the shared kernel', () => {
    using fixture = tree({
      'broker/identity.ts': 'export type Identity = { email: string };\n',
      'broker/broker.ts': "import { x } from './worlds/gateway.ts';\nexport const b = x;\n",
      'broker/worlds/gateway.ts':
        "import type { Identity } from '../identity.ts';\nimport { b } from '../broker.ts';\nexport const x = 1 as unknown as Identity | typeof b;\n",
    });
    assert.deepEqual(importProblems(fixture.src), [
      'src/broker/worlds/gateway.ts imports src/broker/broker.ts: broker/worlds must not depend on broker/broker.ts',
    ]);
  });

  it('rejects a layer importing against the direction', () => {
    using fixture = tree({
      'markdown/a.ts': "import { p } from '../protocol/p.ts';\nexport const a = p;\n",
      'protocol/p.ts': 'export const p = 1;\n',
    });
    assert.deepEqual(importProblems(fixture.src), [
      'src/markdown/a.ts imports src/protocol/p.ts: markdown must not depend on protocol',
    ]);
  });
});
