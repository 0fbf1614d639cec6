import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkHost, checkOrigin, defaultRebindingPolicy } from '../../../src/broker/http/dns-rebinding.ts';

const policy = defaultRebindingPolicy('https://mcp.example.com');

describe('Host check', () => {
  const cases: Array<[string | undefined, boolean]> = [
    ['localhost:8080', true],
    ['127.0.0.1', true],
    ['[::1]:3000', true],
    ['MCP.Example.com', true],
    ['mcp.example.com:443', true],
    ['evil.example', false],
    ['mcp.example.com.evil.example', false],
    ['user@mcp.example.com', false],
    ['mcp.example.com/path', false],
    ['', false],
    [undefined, false],
  ];
  for (const [host, ok] of cases) {
    it(`${ok ? 'accepts' : 'refuses'} Host ${JSON.stringify(host)}`, () =>
      assert.equal(checkHost(host, policy).ok, ok));
  }
});

describe('Origin check', () => {
  const cases: Array<[string | undefined, boolean]> = [
    [undefined, true],
    ['https://mcp.example.com', true],
    ['http://localhost:5173', true],
    ['http://127.0.0.1', true],
    ['http://mcp.example.com', false],
    ['https://mcp.example.com:8443', false],
    ['https://evil.example', false],
    ['null', false],
    ['not a url', false],
  ];
  for (const [origin, ok] of cases) {
    it(`${ok ? 'accepts' : 'refuses'} Origin ${JSON.stringify(origin)}`, () =>
      assert.equal(checkOrigin(origin, policy).ok, ok));
  }

  it('admits only the listed origins once origins are configured', () => {
    const strict = defaultRebindingPolicy('https://mcp.example.com', { allowedOrigins: ['https://app.example.com'] });
    assert.equal(checkOrigin('https://app.example.com', strict).ok, true);
    assert.equal(checkOrigin('http://localhost:5173', strict).ok, false);
    assert.equal(checkOrigin('https://mcp.example.com', strict).ok, false);
  });
});
