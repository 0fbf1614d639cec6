import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseWorldUrl, WorldUrlError } from '../../../src/broker/worlds/index.ts';

function refuses(text: string, message: string, options: { allowFragment?: boolean } = {}): void {
  assert.throws(
    () => parseWorldUrl(text, options),
    (error: unknown) => {
      assert.ok(error instanceof WorldUrlError);
      assert.equal(error.code, 'ERR_INVALID_WORLD_URL');
      assert.equal(error.message, message);
      assert.equal(error.input, text);
      return true;
    },
  );
}

describe('tool URLs: mark://{world}/{path} only (Go broker parseToolURL)', () => {
  it('splits world and path', () => {
    assert.deepEqual(parseWorldUrl('mark://team-a/docs/index.md'), {
      world: 'team-a',
      path: '/docs/index.md',
      fragment: null,
    });
  });

  it('reads a bare world as the root path', () => {
    assert.deepEqual(parseWorldUrl('mark://team-a'), { world: 'team-a', path: '/', fragment: null });
    assert.deepEqual(parseWorldUrl('mark://team-a/'), { world: 'team-a', path: '/', fragment: null });
  });

  it('lower-cases the world name and the scheme', () => {
    assert.deepEqual(parseWorldUrl('MARK://Team-A/Docs.md'), { world: 'team-a', path: '/Docs.md', fragment: null });
  });

  it('percent-decodes the path as Go does', () => {
    assert.equal(parseWorldUrl('mark://team-a/a%20b.md').path, '/a b.md');
    assert.equal(parseWorldUrl('mark://team-a/caf%C3%A9.md').path, '/café.md');
    assert.equal(parseWorldUrl('mark://team-a/a b.md').path, '/a b.md');
  });

  it('accepts an empty query marker, as Go does', () => {
    assert.deepEqual(parseWorldUrl('mark://team-a/x.md?'), { world: 'team-a', path: '/x.md', fragment: null });
  });

  it('refuses other schemes', () => {
    refuses('https://team-a/x.md', 'unsupported scheme "https" (expected mark://)');
    refuses('team-a/x.md', 'unsupported scheme "" (expected mark://)');
    refuses('', 'unsupported scheme "" (expected mark://)');
  });

  it('refuses a URL without a world name', () => {
    refuses('mark:///x.md', 'missing world name in URL "mark:///x.md" (expected mark://{worldName}/{path})');
    refuses('mark:team-a/x.md', 'missing world name in URL "mark:team-a/x.md" (expected mark://{worldName}/{path})');
    refuses('mark://:6309/x.md', 'missing world name in URL "mark://:6309/x.md" (expected mark://{worldName}/{path})');
  });

  it('refuses a port, even an empty one', () => {
    refuses(
      'mark://team-a:7000/x.md',
      'invalid URL "mark://team-a:7000/x.md": world host must not carry a port (the broker resolves world names internally)',
    );
    refuses(
      'mark://team-a:/x.md',
      'invalid URL "mark://team-a:/x.md": world host must not carry a port (the broker resolves world names internally)',
    );
  });

  it('refuses userinfo, even an empty one', () => {
    refuses('mark://eve@team-a/x.md', 'invalid URL "mark://eve@team-a/x.md": world host must not carry userinfo');
    refuses('mark://@team-a/x.md', 'invalid URL "mark://@team-a/x.md": world host must not carry userinfo');
  });

  it('refuses a query', () => {
    refuses('mark://team-a/x.md?rev=1', 'invalid URL "mark://team-a/x.md?rev=1": query parameters are not supported');
  });

  it('refuses a fragment unless the caller allows one', () => {
    refuses('mark://team-a/x.md#intro', 'invalid URL "mark://team-a/x.md#intro": fragments are not supported');
    assert.deepEqual(parseWorldUrl('mark://team-a/x.md#intro', { allowFragment: true }), {
      world: 'team-a',
      path: '/x.md',
      fragment: 'intro',
    });
  });

  it('cuts at the first "#" before parsing when fragments are allowed', () => {
    assert.deepEqual(parseWorldUrl('mark://team-a/x.md#a#b', { allowFragment: true }), {
      world: 'team-a',
      path: '/x.md',
      fragment: 'a#b',
    });
    assert.equal(parseWorldUrl('mark://team-a/x.md#', { allowFragment: true }).fragment, null);
    refuses('mark://team-a/x.md?q#intro', 'invalid URL "mark://team-a/x.md?q": query parameters are not supported', {
      allowFragment: true,
    });
  });

  it('reports Go parse errors with the Go text', () => {
    refuses('mark://team a/x.md', 'invalid URL: parse "mark://team a/x.md": invalid character " " in host name');
    refuses('mark://team-a/%zz', 'invalid URL: parse "mark://team-a/%zz": invalid URL escape "%zz"');
    refuses('mark://team-a/x\n', 'invalid URL: parse "mark://team-a/x\\n": net/url: invalid control character in URL');
    refuses('://team-a/x', 'invalid URL: parse "://team-a/x": missing protocol scheme');
    refuses('mark://[::1/x', 'invalid URL: parse "mark://[::1/x": missing \']\' in host');
    refuses('mark://team-a:7x/x', 'invalid URL: parse "mark://team-a:7x/x": invalid port ":7x" after host');
    refuses('mark://eve smith@team-a/x', 'invalid URL: parse "mark://eve smith@team-a/x": net/url: invalid userinfo');
  });

  it('decodes as Go does: non-ASCII kept, escapes decoded, a lone surrogate becomes U+FFFD', () => {
    assert.deepEqual(parseWorldUrl('mark://wörld/ä.md'), { world: 'wörld', path: '/ä.md', fragment: null });
    assert.equal(parseWorldUrl('mark://team-a/naïve%20file.md').path, '/naïve file.md');
    assert.equal(parseWorldUrl('mark://team-a/x\uD800.md').path, '/x\uFFFD.md');
    assert.equal(parseWorldUrl('mark://te\uD800am/x.md').world, 'te\uFFFDam');
  });

  it('quotes the URL before the fragment in parse errors, as Go does', () => {
    refuses('mark://team a/x.md#intro', 'invalid URL: parse "mark://team a/x.md": invalid character " " in host name');
    refuses('mark://team-a/x.md#%zz', 'invalid URL: parse "mark://team-a/x.md#%zz": invalid URL escape "%zz"');
  });

  it('refuses a decoded path the Mark Protocol cannot carry, saying why (it used to fail at send time as an internal error)', () => {
    const control =
      'the path holds a control character (%00 to %1F other than tab, or %7F), which Mark paths may not contain; remove it';
    refuses('mark://team-a/a%0Ab.md', `invalid URL "mark://team-a/a%0Ab.md": ${control}`);
    refuses('mark://team-a/a%00b.md', `invalid URL "mark://team-a/a%00b.md": ${control}`);
    refuses('mark://team-a/%7F', `invalid URL "mark://team-a/%7F": ${control}`);
    refuses('mark://team-a/a%0Ab.md#intro', `invalid URL "mark://team-a/a%0Ab.md": ${control}`, {
      allowFragment: true,
    });
    refuses(
      `mark://team-a/${'a'.repeat(4087)}`,
      'invalid URL: the path is 4088 bytes once percent-decoded, over the Mark limit of 4087; use a shorter path',
    );
    // The limit counts decoded UTF-8 bytes: three escapes are one byte each, é is two.
    refuses(
      `mark://team-a/${'%41'.repeat(2000)}${'é'.repeat(1044)}`,
      'invalid URL: the path is 4089 bytes once percent-decoded, over the Mark limit of 4087; use a shorter path',
    );
  });

  it('keeps a tab and a path of exactly 4087 bytes, which the protocol allows', () => {
    assert.equal(parseWorldUrl('mark://team-a/a%09b.md').path, '/a\tb.md');
    const longest = `/${'a'.repeat(4086)}`;
    assert.equal(parseWorldUrl(`mark://team-a${longest}`).path, longest);
  });
});
