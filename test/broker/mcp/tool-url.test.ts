import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cutAnchor, parseToolUrl, ToolUrlError } from '../../../src/broker/mcp/tool-url.ts';

function refusal(raw: string): string {
  try {
    parseToolUrl(raw);
  } catch (error) {
    assert.ok(error instanceof ToolUrlError);
    assert.equal(error.code, 'ERR_INVALID_TOOL_URL');
    return error.message;
  }
  assert.fail(`${raw} was accepted`);
}

describe('tool URLs: mark://{world}/{path} only (Go broker parseToolURL)', () => {
  it('reads the world and the percent-decoded path, and an empty path as /', () => {
    assert.deepEqual(parseToolUrl('mark://team-a/docs/a%20b.md'), { world: 'team-a', path: '/docs/a b.md' });
    assert.deepEqual(parseToolUrl('mark://team-a'), { world: 'team-a', path: '/' });
    assert.deepEqual(parseToolUrl('MARK://Team-A/X.md'), { world: 'team-a', path: '/X.md' });
  });

  it('refuses other schemes with the reference text', () => {
    assert.equal(refusal('https://team-a/x.md'), 'unsupported scheme "https" (expected mark://)');
    assert.equal(refusal('team-a/x.md'), 'unsupported scheme "" (expected mark://)');
  });

  it('refuses a missing world, a port, userinfo, a query and a fragment with the reference texts', () => {
    assert.equal(
      refusal('mark:///x.md'),
      'missing world name in URL "mark:///x.md" (expected mark://{worldName}/{path})',
    );
    assert.equal(
      refusal('mark:team-a/x.md'),
      'missing world name in URL "mark:team-a/x.md" (expected mark://{worldName}/{path})',
    );
    assert.equal(
      refusal('mark://team-a:7000/x.md'),
      'invalid URL "mark://team-a:7000/x.md": world host must not carry a port (the broker resolves world names internally)',
    );
    assert.equal(
      refusal('mark://eve@team-a/x.md'),
      'invalid URL "mark://eve@team-a/x.md": world host must not carry userinfo',
    );
    assert.equal(
      refusal('mark://team-a/x.md?rev=1'),
      'invalid URL "mark://team-a/x.md?rev=1": query parameters are not supported',
    );
    assert.equal(
      refusal('mark://team-a/x.md#intro'),
      'invalid URL "mark://team-a/x.md#intro": fragments are not supported',
    );
  });

  it('refuses malformed escapes and control characters as a parse error', () => {
    assert.equal(refusal('mark://team-a/%zz'), 'invalid URL: parse "mark://team-a/%zz": invalid URL escape "%zz"');
    assert.match(refusal('mark://team-a/a\nb'), /invalid control character/);
  });

  it('cuts the anchor at the first # before parsing', () => {
    assert.deepEqual(cutAnchor('mark://w/a.md#part-one#x'), { url: 'mark://w/a.md', anchor: 'part-one#x' });
    assert.deepEqual(cutAnchor('mark://w/a.md'), { url: 'mark://w/a.md', anchor: '' });
  });
});
