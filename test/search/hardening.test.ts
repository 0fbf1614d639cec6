import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseQuery, splitSections } from '../../src/search/index.ts';
import { doc, filler, indexOf, paths } from './fixtures.ts';

describe('hostile input', () => {
  const index = indexOf([doc('/a.md', { body: '# H\r\nwindows line endings\r\n## I\r\nmore\r\n' }), ...filler(3)]);

  it('cuts CRLF bodies into the same sections as LF bodies', () => {
    assert.deepEqual(splitSections('# H\r\nx\r\n## I\r\ny\r\n'), splitSections('# H\nx\n## I\ny\n'));
    assert.deepEqual(paths(index.search('windows endings')), ['/a.md#h']);
  });

  it('treats regular-expression characters in a query as plain separators', () => {
    assert.deepEqual(paths(index.search('(windows)+ [endings]* ^$ \\d')), ['/a.md#h']);
  });

  it('bounds a huge query to 32 terms without failing', () => {
    const huge = Array.from({ length: 20_000 }, (_, i) => `w${i}`).join(' ');
    assert.equal(parseQuery(huge).length, 32);
    assert.deepEqual(index.search(huge), []);
  });

  it('fails the whole search when allow throws, and the index keeps answering', () => {
    assert.throws(
      () =>
        index.search('windows', {
          allow: () => {
            throw new Error('token store down');
          },
        }),
      /token store down/,
    );
    assert.deepEqual(paths(index.search('windows')), ['/a.md#h']);
  });

  it('indexes a body with a very long line and control characters', () => {
    const long = indexOf([
      doc('/l.md', { body: `# H\n${'\u0000\u0007 '.repeat(1000)}needle ${'x'.repeat(100_000)}\n` }),
      ...filler(2),
    ]);
    assert.deepEqual(paths(long.search('needle')), ['/l.md#h']);
  });

  it('answers nothing from an empty index', () => {
    assert.deepEqual(indexOf([]).search('anything', { mode: 'any' }), []);
    assert.deepEqual(indexOf([]).zeroResultHelp('anything'), { nearest: [] });
  });
});
