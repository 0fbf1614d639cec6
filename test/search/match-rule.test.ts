import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { doc, filler, indexOf, paths, setupGuide } from './fixtures.ts';

const index = indexOf([setupGuide, ...filler(8)]);
const find = (q: string, mode: 'all' | 'any' = 'all'): string[] => paths(index.search(q, { limit: 50, mode }));

describe('body match rule (Go `bodymatch.go`)', () => {
  it('answers a section whose text holds every term', () => {
    assert.deepEqual(find('apt kernel'), ['/guide/setup.md#linux']);
  });

  it('answers nothing when the terms sit in different sections', () => {
    assert.deepEqual(find('apt wsl'), []);
  });

  it('answers nothing when one term is found nowhere', () => {
    assert.deepEqual(find('kernel zebra'), []);
  });

  it('answers one bare-path row when tags and title carry every term', () => {
    const rows = index.search('setup install', { limit: 50 });
    assert.deepEqual(paths(rows), ['/guide/setup.md']);
    assert.equal(rows[0]?.heading, undefined);
    assert.equal(rows[0]?.docTitle, 'Setup guide');
  });

  it('lets the title complete a section, but only one holding a term itself', () => {
    assert.deepEqual(find('setup kernel'), ['/guide/setup.md#linux']);
  });

  it('finds a term in the heading trail of a section', () => {
    assert.deepEqual(find('installing wsl'), ['/guide/setup.md#windows']);
  });

  it('answers the leading bare section with anchor "" and no heading', () => {
    const rows = index.search('intro project', { limit: 5 });
    assert.deepEqual(paths(rows), ['/guide/setup.md']);
    assert.equal(rows[0]?.heading, undefined);
    assert.equal(rows[0]?.snippet, 'Intro about the project.');
  });

  it('matches on word-boundary prefixes, never inside a word', () => {
    assert.deepEqual(find('kern'), ['/guide/setup.md#linux']);
    assert.deepEqual(find('ernel'), []);
  });

  it('names the section heading on a section row', () => {
    const [row] = index.search('wsl', { limit: 1 });
    assert.equal(row?.heading, 'Windows');
    assert.equal(row?.docTitle, 'Setup guide');
  });

  it('ranks no row for an empty or star query', () => {
    assert.deepEqual(find('*'), []);
    assert.deepEqual(find('   '), []);
  });

  it('does not count the basename toward the match rule', () => {
    const named = indexOf([
      doc('/a/zeta.md', { title: 'Other', name: 'zeta.md', body: '# H\nkernel text\n' }),
      ...filler(3),
    ]);
    assert.deepEqual(paths(named.search('zeta kernel', { limit: 5 })), []);
    assert.deepEqual(paths(named.search('zeta kernel', { limit: 5, mode: 'any' })), ['/a/zeta.md#h']);
  });
});

describe('match mode any', () => {
  it('admits a section holding only some of the terms', () => {
    assert.deepEqual(find('apt wsl', 'any').sort(), ['/guide/setup.md#linux', '/guide/setup.md#windows']);
  });

  it('gives a document matched only outside its sections a bare-path row', () => {
    const d = indexOf([
      doc('/d/x.md', { title: 'Other', description: 'about quokkas', body: '# H\ntext\n' }),
      ...filler(3),
    ]);
    assert.deepEqual(paths(d.search('quokkas', { mode: 'any' })), ['/d/x.md']);
    assert.deepEqual(paths(d.search('quokkas', { mode: 'all' })), []);
  });

  it('ranks the section holding more terms first', () => {
    // Sections of equal length, so only the count of terms held differs (running text
    // is length-normalised with BM25 b 0.75: a much longer section may rank lower).
    const even = indexOf([
      doc('/guide/os.md', {
        title: 'Systems',
        body: '# Linux\nUse apt and the kernel tools.\n\n# Windows\nUse WSL and the shell tools.\n',
      }),
      ...filler(8),
    ]);
    const rows = even.search('apt kernel wsl', { limit: 5, mode: 'any' });
    assert.deepEqual(paths(rows), ['/guide/os.md#linux', '/guide/os.md#windows']);
  });
});

describe('scope and read authorization', () => {
  const many = indexOf(
    Array.from({ length: 6 }, (_, i) =>
      doc(`/team/d${i}.md`, { title: `Doc ${i}`, importance: 1 - i / 10, body: `# Part\nshared topic words\n` }),
    ).concat(filler(4)),
  );

  it('filters rows by allow before the limit, so hidden rows do not shrink the answer', () => {
    const asked: string[] = [];
    const rows = many.search('shared topic', {
      limit: 2,
      allow: (id) => {
        asked.push(id);
        return id !== '/team/d0.md' && id !== '/team/d1.md';
      },
    });
    assert.deepEqual(paths(rows), ['/team/d2.md#part', '/team/d3.md#part']);
    assert.ok(asked.includes('/team/d0.md'));
  });

  it('answers nothing when allow denies every row', () => {
    assert.deepEqual(many.search('shared topic', { allow: () => false }), []);
  });

  it('keeps documents outside the scope out of the answer', () => {
    const rows = many.search('shared topic', { limit: 10, scope: (id) => id.endsWith('d4.md') });
    assert.deepEqual(paths(rows), ['/team/d4.md#part']);
  });

  it('orders equal scores by path and then anchor', () => {
    const tie = indexOf([
      doc('/b.md', { body: '# Two\nsame words\n# One\nsame words\n' }),
      doc('/a.md', { body: '# Zed\nsame words\n# Yak\nsame words\n' }),
      ...filler(3),
    ]);
    assert.deepEqual(paths(tie.search('same words', { limit: 5 })), [
      '/a.md#yak',
      '/a.md#zed',
      '/b.md#one',
      '/b.md#two',
    ]);
  });
});
