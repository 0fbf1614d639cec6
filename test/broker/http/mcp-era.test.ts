import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isLegacyRequest } from '@modelcontextprotocol/server';
import { isLegacyEra } from '../../../src/broker/http/mcp-era.ts';

const claim = 'io.modelcontextprotocol/protocolVersion';

const ids: unknown[] = ['a', -3, 1.5, 2 ** 53, null, undefined];
const jsonrpcs: unknown[] = ['2.0', '1.0', undefined];
const methods: unknown[] = ['tools/call', 'initialize', 5, undefined];
const params: unknown[] = [
  undefined,
  {},
  { name: 'mark_fetch', arguments: { url: 'mark://root/a.md' } },
  [],
  null,
  'x',
  { _meta: {} },
  { _meta: { progressToken: 1 } },
  { _meta: { progressToken: 1.5 } },
  { _meta: { [claim]: '2026-07-28' } },
  { _meta: { [claim]: 5 } },
  { _meta: { [claim]: '2025-11-25' } },
  { _meta: { [claim]: null } },
  { _meta: [] },
  { name: 'mark_fetch', _meta: { [claim]: '2026-07-28', progressToken: 'p' } },
  { name: 'mark_fetch', _meta: { [claim]: '2026-07-28', 'io.modelcontextprotocol/clientInfo': 5 } },
  { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
];
const extras: Record<string, unknown>[] = [{}, { result: {} }, { error: { code: 1, message: 'm' } }, { other: 1 }];
const versionHeaders: (string | undefined)[] = [
  undefined,
  '2025-11-25',
  '2026-07-28',
  ' 2026-07-28 ',
  'garbage',
  '2025-11-25, 2025-11-25',
];

function bodies(): unknown[] {
  const out: unknown[] = [undefined, null, 'text', 3, [], [{ jsonrpc: '2.0', id: 1, method: 'ping' }]];
  for (const jsonrpc of jsonrpcs)
    for (const id of ids)
      for (const method of methods)
        for (const param of params)
          for (const extra of extras) {
            const body: Record<string, unknown> = { ...extra };
            if (jsonrpc !== undefined) body.jsonrpc = jsonrpc;
            if (id !== undefined) body.id = id;
            if (method !== undefined) body.method = method;
            if (param !== undefined) body.params = param;
            out.push(body);
          }
  return out;
}

/** The SDK's own predicate, on a body-less Request and the parsed body, as the endpoint used it before. */
async function sdkSaysLegacy(method: string, headers: Record<string, string>, body: unknown): Promise<boolean> {
  const request = new Request('http://localhost/mcp', { method, headers });
  return isLegacyRequest(request, method === 'POST' ? body : undefined);
}

describe('isLegacyEra', () => {
  it('agrees with the SDK isLegacyRequest on generated bodies and MCP-Protocol-Version headers', async () => {
    let compared = 0;
    let fastLegacy = 0;
    for (const body of bodies())
      for (const version of versionHeaders) {
        const headers: Record<string, string> = version === undefined ? {} : { 'mcp-protocol-version': version };
        const expected = await sdkSaysLegacy('POST', headers, body);
        assert.equal(
          isLegacyEra('POST', headers, body),
          expected,
          `body ${JSON.stringify(body)} with header ${version}`,
        );
        compared += 1;
        if (expected) fastLegacy += 1;
      }
    // Both answers occur, so the comparison means something.
    assert.ok(fastLegacy > 100 && fastLegacy < compared - 100, `${fastLegacy} of ${compared} legacy`);
  });

  it('agrees on the method and on the Mcp-Method header', async () => {
    const modern = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'x', _meta: { [claim]: '2026-07-28' } },
    };
    for (const method of ['GET', 'DELETE', 'POST'])
      for (const mcpMethod of [undefined, 'tools/call', 'tools/list']) {
        const headers: Record<string, string> = mcpMethod === undefined ? {} : { 'mcp-method': mcpMethod };
        assert.equal(isLegacyEra(method, headers, modern), await sdkSaysLegacy(method, headers, modern));
      }
  });
});
